"""Streaming servers that Courier did not write, for StreamInteropTests (installed by
Scripts/install-test-tools.sh test-streams): sse-starlette's EventSourceResponse and FastAPI's
StreamingResponse, on uvicorn, on a port of the kernel's choosing on 127.0.0.1. Prints
"listening at 127.0.0.1:PORT" when it accepts connections.

  GET /sse?count=N&dropAfter=K&retry=MS   events id 1..N, type "tick", two data lines each; resumes
                                          after Last-Event-ID; 204 once nothing is left; dropAfter
                                          cuts the connection after K events of this connection
  GET /ndjson?count=N                     N lines of {"item_id": i, "display_name": "item i"}
"""
import json
import socket
import sys

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse
from sse_starlette.sse import EventSourceResponse, ServerSentEvent

app = FastAPI()


class Dropped(Exception):
    pass


@app.get("/sse")
async def sse(request: Request, count: int = 5, dropAfter: int | None = None, retry: int | None = None):
    last = int(request.headers.get("last-event-id") or 0)
    if last >= count:
        return Response(status_code=204)

    async def events():
        sent = 0
        for number in range(last + 1, count + 1):
            if dropAfter is not None and sent >= dropAfter:
                raise Dropped()
            yield ServerSentEvent(id=str(number), event="tick", data=f"n={number}\nsquare={number * number}", retry=retry)
            sent += 1

    return EventSourceResponse(events(), ping=600)


@app.get("/ndjson")
async def ndjson(count: int = 3):
    def lines():
        for number in range(1, count + 1):
            yield json.dumps({"item_id": number, "display_name": f"item {number}"}) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    # Ready before uvicorn starts: connections wait in the listen backlog until it accepts them.
    print(f"listening at 127.0.0.1:{port}", flush=True)
    server.run(sockets=[listener])


if __name__ == "__main__":
    sys.exit(main())
