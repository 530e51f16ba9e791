#!/usr/bin/env python3
"""A stand-in OpenTelemetry collector for tests: accepts OTLP/HTTP JSON
(POST /v1/traces) on a loopback port and appends every span it receives as
one JSON line (with the sender's service.name) to --output.

    otlp_receiver.py --output spans.jsonl --port-file port.txt

Writes the port it listens on to --port-file once it is listening (the test
waits for that file), answers 200 with {} (an ExportTraceServiceResponse),
400 to a body that is not OTLP JSON.
"""

import argparse
import http.server
import json
import os
import pathlib


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", required=True)
    parser.add_argument("--port-file", required=True)
    options = parser.parse_args()
    output = pathlib.Path(options.output)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                request = json.loads(body)
                lines = []
                for resource_spans in request["resourceSpans"]:
                    attributes = resource_spans.get("resource", {}).get("attributes", [])
                    service = next(
                        (a["value"].get("stringValue") for a in attributes if a["key"] == "service.name"), None
                    )
                    for scope in resource_spans["scopeSpans"]:
                        for span in scope["spans"]:
                            lines.append(json.dumps(dict(span, service=service)))
            except (ValueError, KeyError, TypeError) as error:
                self.send_response(400)
                self.end_headers()
                self.wfile.write(str(error).encode())
                return
            with output.open("a") as file:
                file.write("".join(line + "\n" for line in lines))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    temporary = options.port_file + ".tmp"
    with open(temporary, "w") as file:
        file.write(str(server.server_address[1]))
    os.replace(temporary, options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
