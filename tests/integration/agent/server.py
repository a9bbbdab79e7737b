"""A small HTTP server for the HTTP tool tests: /weather/<city>, /slow, everything else 404."""
import http.server
import json
import sys
import time
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, body, ctype="application/json"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        if path.startswith("/weather/"):
            city = urllib.parse.unquote(path[len("/weather/"):])
            self.send(200, json.dumps({"city": city, "temp_c": 31, "token": "abc",
                                       "key": self.headers.get("X-Api-Key")}))
        elif path == "/slow":
            time.sleep(2)
            self.send(200, "{}")
        else:
            self.send(404, "not here", "text/plain")

    do_POST = do_GET


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
