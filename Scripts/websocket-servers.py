"""A WebSocket server Courier did not write, for WebSocketInteropTests (installed by
Scripts/install-test-tools.sh test-websockets): the `websockets` package's asyncio server
(RFC 6455, permessage-deflate of RFC 7692), on a port of the kernel's choosing on 127.0.0.1.
Prints "listening at 127.0.0.1:PORT" when it accepts connections.

  /echo     sends every message back as it came; the text "close CODE REASON" makes the server
            close with that code and reason instead. Subprotocols offered: chat.v2, chat.v1 (the
            server picks the first of these the client offers).
  /auth     the same echo, for a client that sends "Authorization: Bearer good"; a 401 with the
            body "token refused" otherwise.
  /flaky    answers the first message of each connection with "MESSAGE on connection N" (N counts
            this server's /flaky connections), then drops connections 1-3 without a close frame
            and closes connection 4 with 1000 "done".
  /token    plain HTTP: 200 with the header "Authorization: Bearer good" (a token endpoint).
  /session  plain HTTP: 200 that sets the cookie "ws-session=s1" (Path=/, HttpOnly).
  /cookie   sends the handshake's Cookie field (or "none") as its one message, then closes with
            1000 "done"; its 101 sets the cookie "ws-handshake=h1" when a Cookie field came.

  --no-compression   do not accept permessage-deflate
"""
import asyncio
import http
import socket
import sys

from websockets.asyncio.server import serve


flaky_connections = 0


async def flaky(connection):
    global flaky_connections
    flaky_connections += 1
    number = flaky_connections
    first = await connection.recv()
    await connection.send(f"{first} on connection {number}")
    if number <= 3:
        connection.transport.abort()
        return
    await connection.close(1000, "done")


async def handler(connection):
    if connection.request.path == "/flaky":
        return await flaky(connection)
    if connection.request.path == "/cookie":
        await connection.send(connection.request.headers.get("Cookie", "none"))
        await connection.close(1000, "done")
        return
    async for message in connection:
        if isinstance(message, str) and message.startswith("close "):
            parts = message.split(" ", 2)
            await connection.close(int(parts[1]), parts[2] if len(parts) > 2 else "")
            return
        await connection.send(message)


def process_request(connection, request):
    if request.path == "/token":
        response = connection.respond(http.HTTPStatus.OK, "here is a token\n")
        response.headers["Authorization"] = "Bearer good"
        return response
    if request.path == "/session":
        response = connection.respond(http.HTTPStatus.OK, "signed in\n")
        response.headers["Set-Cookie"] = "ws-session=s1; Path=/; HttpOnly"
        return response
    if request.path not in ("/echo", "/auth", "/flaky", "/cookie"):
        return connection.respond(http.HTTPStatus.NOT_FOUND, "no such WebSocket\n")
    if request.path == "/auth" and request.headers.get("Authorization") != "Bearer good":
        return connection.respond(http.HTTPStatus.UNAUTHORIZED, "token refused\n")
    return None


def process_response(connection, request, response):
    # A cookie set on the handshake's 101, for a client that sent one.
    if request.path == "/cookie" and "Cookie" in request.headers and response.status_code == 101:
        response.headers["Set-Cookie"] = "ws-handshake=h1; Path=/"
    return response


async def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    compression = None if "--no-compression" in sys.argv else "deflate"
    async with serve(
        handler, sock=listener, subprotocols=["chat.v2", "chat.v1"], compression=compression,
        process_request=process_request, process_response=process_response, max_size=32 * 1024 * 1024, ping_interval=None,
        select_subprotocol=lambda connection, offered: next((p for p in ["chat.v2", "chat.v1"] if p in offered), None),
    ) as server:
        print(f"listening at 127.0.0.1:{port}", flush=True)
        await server.serve_forever()


asyncio.run(main())
