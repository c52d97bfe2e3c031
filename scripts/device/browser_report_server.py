#!/usr/bin/env python3
"""Serves a folder on a loopback port and waits for one page to POST its report to /report.

   browser_report_server.py SITE_DIR OUT.json SECONDS -- BROWSER ARGS... URL_PATH

Starts the browser (the last argument is the page's path; the server's address is put in
front of it, with ?report=/report appended), waits at most SECONDS for the report, writes it
to OUT.json, stops the browser. Exit status 0 with a report, 3 without one (the browser's
output is printed then). For the GPU machine, which has Python but no node (browser-bench.sh).
"""
import functools
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading


def main():
    site, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    browser = sys.argv[sys.argv.index("--") + 1:]
    received = threading.Event()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(out, "wb") as f:
                f.write(body)
            self.send_response(204)
            self.end_headers()
            received.set()

        def log_message(self, *args):
            pass

    handler = functools.partial(Handler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}{browser[-1]}"
    url += ("&" if "?" in url else "?") + "report=/report"
    log = tempfile.TemporaryFile(mode="w+")
    # A session of its own: the browser's GPU and renderer processes go with it.
    process = subprocess.Popen(browser[:-1] + [url], stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    got = received.wait(seconds)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    log.seek(0)
    output = log.read()
    server.shutdown()
    if not got:
        print("no report from the page; the browser said:\n" + output[-4000:])
        return 3
    report = json.load(open(out))
    for r in report.get("results", []):
        print(("PASS " if r["ok"] else "FAIL ") + r["name"] + ": " + r.get("detail", ""))
    print("device:", report.get("data", {}).get("device"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
