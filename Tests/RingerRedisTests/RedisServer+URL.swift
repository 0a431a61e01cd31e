import RingerRedis
import RingerTestSupport

extension RedisServer {
    /// This server as a ``RedisURL`` with a login and a database.
    func url(user: String? = nil, password: String? = nil, database: Int = 0) -> RedisURL {
        RedisURL(host: "127.0.0.1", port: port, database: database, user: user, password: password)
    }
}
