#!/usr/bin/env python3
"""Issue 34's serve attacks measured against one or more builds of parse-porter, in one invocation.

For each binary, each on `serve` started anew on a fresh mirror, prints
- AddUnique of 20,000 values on an Array of 20,000, then Remove of 20,000 (item 1): seconds each;
- 24 concurrent GETs of a 48 MB answer (item 4): answers by status, the server's memory before
  and at its peak while they run;
- a wrong password by username and by email, for an account that exists and one that does not
  (item 9): the median of 7 log-ins each.

    Benchmarks/serve_hostile.py .build/release/parse-porter /tmp/old/parse-porter

A request taking longer than --timeout seconds is printed as "> timeout". The figures are quoted
in Benchmarks/RESULTS.md ("serve under hostile clients").
"""
import argparse, http.client, json, os, re, statistics, subprocess, sys, tempfile, threading, time

APP, MASTER, REST = "benchApp", "bench-master-key", "bench-rest-key"


class Server:
    def __init__(self, binary, folder):
        env = dict(os.environ, PARSE_MASTER_KEY=MASTER, PARSE_REST_API_KEY=REST)
        self.process = subprocess.Popen([binary, "serve", os.path.join(folder, "bench.sqlite"), "--port", "0", "--app-id", APP, "--quiet"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.port = int(re.search(r":(\d+)/", self.process.stdout.readline().decode()).group(1))

    def send(self, method, path, body=None, master=True, timeout=600):
        headers = {"X-Parse-Application-Id": APP, "Content-Type": "application/json"}
        headers.update({"X-Parse-Master-Key": MASTER} if master else {"X-Parse-REST-API-Key": REST})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        started = time.monotonic()
        try:
            connection.request(method, "/parse" + path, body=None if body is None else json.dumps(body).encode(), headers=headers)
            response = connection.getresponse()
            payload = response.read()
            return response.status, payload, time.monotonic() - started
        except OSError:
            return None, b"", time.monotonic() - started
        finally:
            connection.close()

    def memory(self, field):
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) // 1024 for line in status if line.startswith(field + ":"))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def seconds(result, timeout):
    status, _, elapsed = result
    return f"> {timeout:.0f} s" if status is None else f"{elapsed:.2f} s ({status})"


def item1(server, timeout):
    status, payload, _ = server.send("POST", "/classes/Tags", {"a": list(range(20_000))})
    tags = json.loads(payload)["objectId"]
    added = server.send("PUT", f"/classes/Tags/{tags}", {"a": {"__op": "AddUnique", "objects": list(range(10_000, 30_000))}}, timeout=timeout)
    removed = server.send("PUT", f"/classes/Tags/{tags}", {"a": {"__op": "Remove", "objects": list(range(0, 40_000, 2))}}, timeout=timeout)
    return f"item 1: AddUnique 20,000 on 20,000: {seconds(added, timeout)}; Remove of 20,000 values from 30,000: {seconds(removed, timeout)}"


def item4(server, timeout):
    blob = "x" * 400_000
    for _ in range(6):
        server.send("POST", "/batch", {"requests": [{"method": "POST", "path": "/parse/classes/Big", "body": {"t": blob}}] * 20})
    statuses, lock = [], threading.Lock()
    before = server.memory("VmRSS")
    with open(f"/proc/{server.process.pid}/clear_refs", "w") as refs:
        refs.write("5")  # resets VmHWM to the current resident set
    def get():
        status, _, _ = server.send("GET", "/classes/Big?limit=1000", timeout=timeout)
        with lock: statuses.append(status)
    threads = [threading.Thread(target=get) for _ in range(24)]
    started = time.monotonic()
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    counts = {status: statuses.count(status) for status in sorted(set(statuses), key=str)}
    return (f"item 4: 24 concurrent GETs of a 48 MB answer in {time.monotonic() - started:.1f} s: {counts}; "
            f"memory {before} MB before, peak {server.memory('VmHWM')} MB")


def item9(server, timeout):
    server.send("POST", "/users", {"username": "real", "password": "right", "email": "real@example.com"}, master=False)
    def median(body):
        return statistics.median(server.send("POST", "/login", body, master=False, timeout=timeout)[2] for _ in range(7)) * 1000
    pairs = [("username", {"username": "real", "password": "wrong"}, {"username": "ghost", "password": "wrong"}),
             ("email", {"email": "real@example.com", "password": "wrong"}, {"email": "ghost@example.com", "password": "wrong"})]
    return "item 9: wrong password, median of 7: " + "; ".join(
        f"by {key} {median(known):.1f} ms with an account, {median(unknown):.1f} ms without" for key, known, unknown in pairs)


def measure(binary, timeout):
    """Each item on a server of its own, so that work one leaves running does not slow the next."""
    print(f"{binary}:")
    for item in (item1, item4, item9):
        with tempfile.TemporaryDirectory(prefix="serve-hostile-") as folder:
            server = Server(binary, folder)
            try:
                print("  " + item(server, timeout), flush=True)
            finally:
                server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    for binary in args.binaries:
        measure(binary, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
