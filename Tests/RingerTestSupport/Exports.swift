// The throw-away fixtures (child processes, PostgreSQL, Redis) are RingerTestKit's, shared with the laboratory;
// every test target that imports RingerTestSupport sees them as before they moved there.
@_exported public import RingerTestKit
