#!/usr/bin/env python3
"""A misbehaving HTTP/2 server for HTTP2ClientTests, built on the `h2` library (not hypercorn), so each frame it
sends is under the test's control.

Usage: h2_fault_peer.py --cert CERT --key KEY [--initial-window N [--window-step S]] [--no-ping-ack]

Listens on an ephemeral 127.0.0.1 port (TLS, ALPN h2) and prints "PORT <n>" once it accepts connections.
It exits when its stdin closes, so it never outlives the test process.

--initial-window N  announces SETTINGS_INITIAL_WINDOW_SIZE N (a slow reader): each stream's window then opens
                    by S bytes (--window-step, default 1000) when its headers arrive and after each DATA frame,
                    except on /stall.
--no-ping-ack       never acknowledges a PING (a non-conforming server), while answering everything else.

Paths (the request body is read to its end first, unless said otherwise):
  /echo-size            200, body = decimal byte count of the request body
  /delay/<ms>           200 "late" after <ms> milliseconds
  /rst/<code>           RST_STREAM with that error code (decimal) instead of an answer
  /interim              103 Early Hints, then 200 "final" with a trailer "x-trailer: done"
  /big-header/<bytes>   200 with a header field "x-big" of that many bytes
  /many-headers/<n>     200 with n header fields "x-h<i>" of 1000 bytes each
  /protocol-error       a connection-level protocol violation (WINDOW_UPDATE with increment 0 on stream 0),
                        and the TCP connection is kept open; nothing else is answered on that connection
  /stall                never opens the stream's window (with --initial-window 0 no body byte can go out)
  /never                no answer
"""

import argparse
import asyncio
import ssl
import struct
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings


class Connection:
    def __init__(self, reader, writer, args):
        self.reader = reader
        self.writer = writer
        self.args = args
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
        self.paths = {}
        self.bodies = {}
        self.broken = False

    def flush(self):
        if not self.broken:
            self.writer.write(self.conn.data_to_send())

    async def run(self):
        self.conn.initiate_connection()
        if self.args.initial_window is not None:
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: self.args.initial_window})
        self.flush()
        while True:
            data = await self.reader.read(65536)
            if not data:
                break
            if self.broken:
                continue  # swallow everything, keep the socket open
            try:
                events = self.conn.receive_data(data)
            except Exception:
                break
            for event in events:
                if isinstance(event, h2.events.PingReceived) and self.args.no_ping_ack:
                    self.conn.data_to_send()  # drop the automatic ACK (nothing else is queued by a PING)
                    continue
                await self.on_event(event)
            self.flush()
        self.writer.close()

    def open_window(self, stream_id):
        if self.paths.get(stream_id) != "/stall":
            try:
                self.conn.increment_flow_control_window(self.args.window_step, stream_id)
            except Exception:
                pass

    async def on_event(self, event):
        if isinstance(event, h2.events.RequestReceived):
            headers = dict(event.headers)
            path = headers[b":path"].decode()
            self.paths[event.stream_id] = path
            self.bodies[event.stream_id] = 0
            if path == "/protocol-error":
                self.flush()
                self.writer.write(struct.pack(">I", 4)[1:] + bytes([0x8, 0]) + struct.pack(">I", 0) + struct.pack(">I", 0))
                self.broken = True
                return
            if self.args.initial_window is not None:
                self.open_window(event.stream_id)
            if event.stream_ended:
                asyncio.ensure_future(self.answer(event.stream_id))
        elif isinstance(event, h2.events.DataReceived):
            self.bodies[event.stream_id] = self.bodies.get(event.stream_id, 0) + len(event.data)
            if self.args.initial_window is None:
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif event.flow_controlled_length:
                # The connection window always reopens; the stream's only by the step.
                self.conn.increment_flow_control_window(event.flow_controlled_length)
                self.open_window(event.stream_id)
            if event.stream_ended:
                asyncio.ensure_future(self.answer(event.stream_id))
        elif isinstance(event, h2.events.StreamEnded):
            pass

    async def answer(self, stream_id):
        path = self.paths[stream_id]
        conn = self.conn
        try:
            if path == "/echo-size":
                body = str(self.bodies[stream_id]).encode()
                conn.send_headers(stream_id, [(b":status", b"200"), (b"content-length", str(len(body)).encode())])
                conn.send_data(stream_id, body, end_stream=True)
            elif path.startswith("/delay/"):
                await asyncio.sleep(int(path.split("/")[2]) / 1000)
                conn.send_headers(stream_id, [(b":status", b"200")])
                conn.send_data(stream_id, b"late", end_stream=True)
            elif path.startswith("/rst/"):
                conn.reset_stream(stream_id, int(path.split("/")[2]))
            elif path == "/interim":
                conn.send_headers(stream_id, [(b":status", b"103"), (b"link", b"</a>; rel=preload")])
                conn.send_headers(stream_id, [(b":status", b"200"), (b"x-final", b"yes")])
                conn.send_data(stream_id, b"final")
                conn.send_headers(stream_id, [(b"x-trailer", b"done")], end_stream=True)
            elif path.startswith("/big-header/"):
                size = int(path.split("/")[2])
                conn.send_headers(stream_id, [(b":status", b"200"), (b"x-big", b"y" * size)], end_stream=True)
            elif path.startswith("/many-headers/"):
                count = int(path.split("/")[2])
                fields = [(b":status", b"200")] + [(f"x-h{i}".encode(), b"z" * 1000) for i in range(count)]
                conn.send_headers(stream_id, fields, end_stream=True)
            else:  # /never, /stall
                return
        except Exception as error:  # a stream the client reset meanwhile
            print(f"answer {path}: {error!r}", file=sys.stderr)
            return
        self.flush()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--initial-window", type=int)
    parser.add_argument("--window-step", type=int, default=1000)
    parser.add_argument("--no-ping-ack", action="store_true")
    args = parser.parse_args()

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])

    async def serve(reader, writer):
        try:
            await Connection(reader, writer, args).run()
        except (ConnectionError, ssl.SSLError):
            pass

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()

    def watch_stdin():
        sys.stdin.buffer.read()
        loop.call_soon_threadsafe(stdin_closed.set)

    loop.run_in_executor(None, watch_stdin)
    print(f"PORT {port}", flush=True)
    await stdin_closed.wait()
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
