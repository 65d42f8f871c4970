"""Resumable-upload servers that Courier did not write, for UploadResumeTests (installed by
Scripts/install-test-tools.sh test-uploads): tuspyserver's tus 1.0 router (core, creation,
termination) in FastAPI, on uvicorn, on a port of the kernel's choosing on 127.0.0.1. Prints
"listening at 127.0.0.1:PORT" when it accepts connections.

  /files/...            tuspyserver, storing in a temporary folder
  /lying/...            the same router, whose PATCH answers claim 1000 bytes more than it stored
  /flaky/...            the same router, but the first three PATCHes stop after 300 KiB of their
                        body: the server keeps those bytes and the connection is cut without an answer
  /private/...          the same router behind a bearer token that is good for two PATCHes; POST /token
                        answers a new one in its Authorization header
  GET  /stats           {"patchBytes": N, "requests": M}: body bytes of every PATCH received, and
                        the number of requests (the test routes below and /token excluded)
  GET  /sha256/{id}     the SHA-256 of what the upload {id} holds
  POST /expire/{id}     forgets the upload {id}, as an expired one is forgotten
  POST /truncate/{id}?to=N  keeps only the first N bytes of the upload {id}, as a server that lost
                        the rest does (its HEAD then answers offset N)
  POST /patches/hold    holds every PATCH, unanswered and away from the router (printing "held
                        PATCH <path>"), until POST /patches/accept answers the held ones 500
"""
import asyncio
import hashlib
import json
import os
import socket
import sys
import tempfile

import uvicorn
from fastapi import FastAPI, HTTPException, Request, Response
from tuspyserver import create_tus_router

folder = tempfile.mkdtemp(prefix="courier-tus-")
counts = {"patchBytes": 0, "requests": 0}
drops = {"left": 3}
held = {"patches": None}  # while PATCHes are held: the event that ends the hold
DROP_AFTER = 300 * 1024

app = FastAPI()
app.include_router(create_tus_router(prefix="files", files_dir=folder))
app.include_router(create_tus_router(prefix="lying", files_dir=folder))
app.include_router(create_tus_router(prefix="flaky", files_dir=folder))
token = {"value": "Bearer t0", "patches": 0, "issued": 0}


async def bearer(request: Request):
    if request.headers.get("authorization") != token["value"]:
        raise HTTPException(status_code=401, headers={"WWW-Authenticate": "Bearer"})
    if request.method == "PATCH":
        token["patches"] += 1
        if token["patches"] > 2:
            raise HTTPException(status_code=401, headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})


app.include_router(create_tus_router(prefix="private", files_dir=folder, auth=bearer))


@app.post("/token")
def new_token(response: Response):
    token["issued"] += 1
    token["value"] = f"Bearer t{token['issued']}"
    token["patches"] = 0
    response.headers["Authorization"] = token["value"]
    return {"issued": token["issued"]}


class Dropped(Exception):
    pass


@app.get("/stats")
def stats():
    return dict(counts, tokens=token["issued"])


def stored(upload: str) -> str:
    if not upload.replace("-", "").isalnum():
        raise HTTPException(status_code=400)
    path = os.path.join(folder, upload)
    if not os.path.exists(path):
        raise HTTPException(status_code=404)
    return path


@app.get("/sha256/{upload}")
def sha256(upload: str):
    with open(stored(upload), "rb") as file:
        return {"sha256": hashlib.sha256(file.read()).hexdigest(), "size": os.path.getsize(stored(upload))}


@app.post("/expire/{upload}")
def expire(upload: str):
    for name in os.listdir(folder):
        if name.startswith(upload):
            os.remove(os.path.join(folder, name))
    return {}


@app.post("/truncate/{upload}")
def truncate(upload: str, to: int):
    path = stored(upload)
    if not 0 <= to <= os.path.getsize(path):
        raise HTTPException(status_code=400)
    os.truncate(path, to)
    with open(f"{path}.info") as file:
        info = json.load(file)
    info["offset"] = to
    with open(f"{path}.info", "w") as file:
        json.dump(info, file)
    return {"offset": to}


@app.post("/patches/{choice}")
async def patches(choice: str):
    if choice == "hold":
        held["patches"] = held["patches"] or asyncio.Event()
    elif choice == "accept":
        if held["patches"] is not None:
            held["patches"].set()
        held["patches"] = None
    else:
        raise HTTPException(status_code=404)
    return {}


TEST_ROUTES = ("/stats", "/sha256", "/expire", "/token", "/truncate", "/patches")


def counting(inner):
    """Counts requests and PATCH body bytes; under /lying, PATCH answers overstate the offset."""

    async def application(scope, receive, send):
        if scope["type"] != "http":
            return await inner(scope, receive, send)
        path = scope["path"]
        if not path.startswith(TEST_ROUTES):
            counts["requests"] += 1
        patch = scope["method"] == "PATCH"
        hold = held["patches"] if patch else None
        if hold is not None:
            print(f"held PATCH {path}", flush=True)
            await hold.wait()
            await send({"type": "http.response.start", "status": 500, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return

        drop = patch and path.startswith("/flaky/") and drops["left"] > 0
        if drop:
            drops["left"] -= 1
        received = 0

        async def receiving():
            nonlocal received
            message = await receive()
            if patch and message["type"] == "http.request":
                body = message.get("body", b"")
                if drop and received + len(body) >= DROP_AFTER:
                    # The rest of the body never reaches the router, which keeps what it got.
                    message = {"type": "http.request", "body": body[: DROP_AFTER - received], "more_body": False}
                    body = message["body"]
                received += len(body)
                counts["patchBytes"] += len(body)
            return message

        async def sending(message):
            if drop and message["type"] == "http.response.start":
                # A response begun and never finished: uvicorn cuts the connection.
                await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"10")]})
                raise Dropped()
            if patch and path.startswith("/lying/") and message["type"] == "http.response.start":
                headers = []
                for name, value in message["headers"]:
                    if name.lower() == b"upload-offset":
                        value = str(int(value) + 1000).encode()
                    headers.append((name, value))
                message = dict(message, headers=headers)
            await send(message)

        return await inner(scope, receiving, sending)

    return application


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    # Kept-alive connections stay open 5 minutes, not uvicorn's 5 seconds: on a loaded test machine
    # a client's next request can come later than that, and meet a connection closed under it.
    server = uvicorn.Server(uvicorn.Config(counting(app), log_level="warning", timeout_keep_alive=300))
    # Ready before uvicorn starts: connections wait in the listen backlog until it accepts them.
    print(f"listening at 127.0.0.1:{port}", flush=True)
    server.run(sockets=[listener])


if __name__ == "__main__":
    sys.exit(main())
