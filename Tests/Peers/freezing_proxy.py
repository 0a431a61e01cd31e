"""A TCP relay that can go silent, to play a half-open connection (a peer that vanished without FIN/RST).

Usage: freezing_proxy.py TARGET_PORT
Prints "PORT <n>" (its loopback listening port), then relays every connection to 127.0.0.1:TARGET_PORT.
SIGUSR1 freezes it: bytes in either direction are held, nothing is closed. SIGUSR2 thaws it.
Exits when its stdin closes, so it never outlives the test that started it.
"""
import asyncio
import os
import signal
import sys
import threading

frozen = asyncio.Event()  # set while frozen


async def relay(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            while frozen.is_set():
                await asyncio.sleep(0.05)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer, target_port):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(relay(client_reader, server_writer), relay(server_reader, client_writer))


async def main():
    target_port = int(sys.argv[1])
    loop = asyncio.get_running_loop()
    # The parent may have spawned us with these blocked (the mask is inherited).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2})
    loop.add_signal_handler(signal.SIGUSR1, frozen.set)
    loop.add_signal_handler(signal.SIGUSR2, frozen.clear)
    server = await asyncio.start_server(lambda r, w: handle(r, w, target_port), "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


def exit_when_stdin_closes():
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
asyncio.run(main())
