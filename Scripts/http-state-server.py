"""The server of the http-state cookie cases (the IETF http-state working group's parser cases), for
Scripts/http-state.sh and CookieTests. Python's standard library only.

It stands in for every host the cases name (home.example.org, sibling.example.org...): clients
reach it as their HTTP proxy, in a CONNECT tunnel (async-http-client) or with absolute-form
request targets (URLSession through libcurl's http_proxy), and it answers as the origin the request
names. Prints "listening at 127.0.0.1:PORT" when it accepts connections.

  GET /cookie-parser?CASE   answers 200 with the case's Set-Cookie lines, each a field of its own,
                            written as the bytes the case gives (UTF-8), control characters included
  GET anything else?CASE    answers 200 with the Cookie field it received as its body (empty when none)

Usage: python3 Scripts/http-state-server.py PARSER_JSON
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

with open(sys.argv[1], encoding="utf-8") as source:
    CASES = {case["test"].lower().replace("_", "-"): case for case in json.load(source)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *arguments):
        pass

    def reply(self, fields, body):
        head = [b"HTTP/1.1 200 OK", b"Content-Type: text/plain; charset=utf-8", b"Content-Length: %d" % len(body)]
        head += [b"Set-Cookie: " + value.encode("utf-8") for value in fields]
        self.wfile.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        self.wfile.flush()

    def do_CONNECT(self):
        # The tunnel carries plain HTTP: the requests that follow are read on this connection.
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        self.close_connection = False

    def do_GET(self):
        target = urlsplit(self.path)
        case = CASES.get(target.query.lower())
        if case is None:
            self.send_error(404, "no such case")
            return
        if target.path == "/cookie-parser":
            self.reply(case["received"], b"set")
        else:
            # The field as it came, byte for byte (http.server decodes it as Latin-1).
            cookies = self.headers.get_all("Cookie") or []
            self.reply([], "; ".join(cookies).encode("latin-1", "replace"))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("listening at 127.0.0.1:%d" % server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
