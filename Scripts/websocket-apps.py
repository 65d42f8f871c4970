"""WebSocket servers Courier did not write, for WebSocketInteropTests (installed by
Scripts/install-test-tools.sh test-websockets), on a port of the kernel's choosing on 127.0.0.1.
Each prints "listening at 127.0.0.1:PORT" when it accepts connections.

  autobahn [--no-compression]
      Autobahn's asyncio WebSocket server (its own RFC 6455 and permessage-deflate). /echo sends
      every message back, in frames of at most 64 KiB (so a large message arrives fragmented);
      the text "close CODE REASON" makes it close with that code and reason instead.

  fastapi
      A FastAPI (Starlette) WebSocket endpoint under uvicorn, as applications deploy one.
      /echo sends every message back, for a client that sends "Authorization: Bearer good":
      without the header the handshake is refused with 401 and the body "token missing", with
      another token with 403 (Starlette's close before accept). "close CODE REASON" closes.
"""
import asyncio
import socket
import sys


def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def close_request(text):
    """(code, reason) for a "close CODE REASON" message, else None."""
    if not text.startswith("close "):
        return None
    parts = text.split(" ", 2)
    return int(parts[1]), parts[2] if len(parts) > 2 else ""


def autobahn(compression):
    from autobahn.asyncio.websocket import WebSocketServerFactory, WebSocketServerProtocol
    from autobahn.websocket.compress import PerMessageDeflateOffer, PerMessageDeflateOfferAccept

    class Echo(WebSocketServerProtocol):
        def onConnect(self, request):
            if request.path != "/echo":
                from autobahn.websocket.types import ConnectionDeny
                raise ConnectionDeny(404, "no such WebSocket")
            return None

        def onMessage(self, payload, is_binary):
            if not is_binary:
                close = close_request(payload.decode("utf-8"))
                if close:
                    self.sendClose(close[0], close[1])
                    return
            self.sendMessage(payload, is_binary)

    def accept(offers):
        for offer in offers:
            if isinstance(offer, PerMessageDeflateOffer):
                return PerMessageDeflateOfferAccept(offer)
        return None

    async def main():
        # Made on the loop that runs it: txaio binds Autobahn to a loop when a factory is made.
        factory = WebSocketServerFactory("ws://127.0.0.1", loop=asyncio.get_running_loop())
        factory.protocol = Echo
        options = {"autoFragmentSize": 65536, "maxMessagePayloadSize": 32 * 1024 * 1024, "maxFramePayloadSize": 32 * 1024 * 1024,
                   # Autobahn drops a client that answers its close later than 1 second (5 for the
                   # opening handshake): too soon for a test machine under load.
                   "openHandshakeTimeout": 60, "closeHandshakeTimeout": 60}
        if compression:
            options["perMessageCompressionAccept"] = accept
        factory.setProtocolOptions(**options)
        sock = listener()
        server = await asyncio.get_running_loop().create_server(factory, sock=sock)
        print(f"listening at 127.0.0.1:{sock.getsockname()[1]}", flush=True)
        await server.serve_forever()

    asyncio.run(main())


def fastapi():
    import uvicorn
    from fastapi import FastAPI, WebSocket, WebSocketDisconnect
    from starlette.responses import PlainTextResponse

    app = FastAPI()

    @app.websocket("/echo")
    async def echo(websocket: WebSocket):
        token = websocket.headers.get("authorization")
        if token is None:
            await websocket.send_denial_response(PlainTextResponse("token missing", status_code=401))
            return
        if token != "Bearer good":
            await websocket.close(code=1008)
            return
        await websocket.accept()
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is not None:
                    close = close_request(text)
                    if close:
                        await websocket.close(code=close[0], reason=close[1])
                        return
                    await websocket.send_text(text)
                else:
                    await websocket.send_bytes(message.get("bytes") or b"")
        except WebSocketDisconnect:
            return

    sock = listener()
    config = uvicorn.Config(app, log_level="warning", ws_max_size=32 * 1024 * 1024, ws_ping_interval=None)
    # The socket listens already: a connection made before uvicorn accepts waits in its backlog.
    print(f"listening at 127.0.0.1:{sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("autobahn", "fastapi"):
        sys.exit("usage: websocket-apps.py autobahn [--no-compression] | fastapi")
    if sys.argv[1] == "autobahn":
        autobahn("--no-compression" not in sys.argv)
    else:
        fastapi()
