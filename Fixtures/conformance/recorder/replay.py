#!/usr/bin/env python3
"""Replay the Parse Server conformance corpus (corpus.json) against any Parse-compatible server.

stdlib only.  Usage:
  python3 replay.py URL [--corpus corpus.json] [--app-id app] [--master-key master]
                    [--rest-key rest] [--maintenance-key maint] [--only SUBSTR] [--skip-defects]
                    [--include-differ] [--quiet]
URL is the mount, e.g. http://127.0.0.1:1337/parse

Prints one line per step (PASS / FAIL, with a diff for FAIL) and a final line
"N passed, M failed".  See README.md for the corpus format and the normalisation rules;
the functions below (normalise, substitute, reset_classes) are the reference implementation
and are also what the recorder used.
"""
import argparse, difflib, json, re, sys, urllib.error, urllib.parse, urllib.request

ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
VAR_RE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")


class Keys:
    def __init__(self, app="app", master="master", rest="rest", maint="maint"):
        self.app, self.master, self.rest, self.maint = app, master, rest, maint


def auth_headers(auth, keys, vars_):
    a = auth or "client"
    if a == "none":
        return {}
    if a == "app-only":
        return {"X-Parse-Application-Id": keys.app}
    if a == "master":
        return {"X-Parse-Application-Id": keys.app, "X-Parse-Master-Key": keys.master}
    if a == "maintenance":
        return {"X-Parse-Application-Id": keys.app, "X-Parse-Maintenance-Key": keys.maint}
    if a == "client":
        return {"X-Parse-Application-Id": keys.app, "X-Parse-REST-API-Key": keys.rest}
    if a == "wrong-key":
        return {"X-Parse-Application-Id": keys.app, "X-Parse-REST-API-Key": keys.rest + "-wrong"}
    if a == "wrong-master":
        return {"X-Parse-Application-Id": keys.app, "X-Parse-Master-Key": keys.master + "-wrong"}
    if a == "wrong-app":
        return {"X-Parse-Application-Id": keys.app + "-wrong", "X-Parse-REST-API-Key": keys.rest}
    if a.startswith("session:"):
        h = {"X-Parse-Application-Id": keys.app, "X-Parse-REST-API-Key": keys.rest}
        v = a.split(":", 1)[1]
        h["X-Parse-Session-Token"] = vars_.get(v, "r:unbound-" + v) if not v.startswith("r:") else v
        return h
    raise ValueError("unknown auth " + a)


def substitute(x, vars_):
    if isinstance(x, str):
        return VAR_RE.sub(lambda m: str(vars_.get(m.group(1), m.group(0))), x)
    if isinstance(x, list):
        return [substitute(v, vars_) for v in x]
    if isinstance(x, dict):
        return {substitute(k, vars_): substitute(v, vars_) for k, v in x.items()}
    return x


def http(base, method, path, query=None, headers=None, body=None, raw_body=None, content_type=None, timeout=30):
    url = base.rstrip("/") + path
    if query:
        url += "?" + urllib.parse.urlencode(query)
    h = dict(headers or {})
    data = None
    if raw_body is not None:
        data = raw_body.encode()
        h["Content-Type"] = content_type or "application/json"
    elif body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = content_type or "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            st, txt = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        st, txt = e.code, e.read().decode("utf-8", "replace")
    except Exception as e:  # connection reset, timeout ...
        return 0, {"__transportError__": type(e).__name__}
    if txt == "":
        return st, None
    try:
        return st, json.loads(txt)
    except Exception:
        return st, {"__nonJSON__": txt[:300]}


# ---------------------------------------------------------------- normalisation
class NormCtx:
    """Per-scenario state: server-assigned objectIds -> {{id:N}}; strings present in the
    scenario's requests are literals and are never rewritten."""

    def __init__(self, literal_text):
        self.literal_text = literal_text
        self.ids = {}

    def is_literal(self, s):
        return s in self.literal_text

    def register(self, x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "objectId" and isinstance(v, str) and v and not self.is_literal(v) and v not in self.ids:
                    self.ids[v] = "{{id:%d}}" % (len(self.ids) + 1)
                self.register(v)
        elif isinstance(x, list):
            for v in x:
                self.register(v)


def _rep(x, ctx, key=None, unknown_ok=False):
    if isinstance(x, dict):
        if x.get("__type") == "File":
            return {k: ("<file>" if k in ("name", "url") else _rep(v, ctx, k, unknown_ok)) for k, v in x.items()}
        return {ctx.ids.get(k, k): _rep(v, ctx, k, unknown_ok) for k, v in x.items()}
    if isinstance(x, list):
        return [_rep(v, ctx, None, unknown_ok) for v in x]
    if isinstance(x, str):
        if key == "sessionToken":
            return "<token>"
        if x in ctx.ids:
            return ctx.ids[x]
        if key == "objectId" and unknown_ok and not ctx.is_literal(x):
            return "{{id:?}}"
        if ISO_RE.match(x) and not ctx.is_literal(x):
            return "<date>"
        for i, p in ctx.ids.items():
            if len(i) >= 8 and i in x:
                x = x.replace(i, p)
        return x
    return x


def normalise(body, ctx, step):
    """Normalise a response body for comparison. Mutates ctx (id numbering)."""
    req = step["request"]
    unordered = (req["method"] == "GET" and isinstance(body, dict) and isinstance(body.get("results"), list)
                 and "order" not in (req.get("query") or {}))
    if req["path"].startswith("/files/") and req["method"] == "POST" and isinstance(body, dict):
        body = {k: ("<file>" if k in ("name", "url") else v) for k, v in body.items()}
    keep = (step.get("normalise") or {}).get("keepClasses")
    if keep is not None and isinstance(body, dict) and isinstance(body.get("results"), list):
        body = dict(body, results=[r for r in body["results"] if isinstance(r, dict) and r.get("className") in keep])
    if unordered:
        res = body["results"]
        res = sorted(res, key=lambda e: json.dumps(_rep(e, ctx, unknown_ok=True), sort_keys=True))
        body = dict(body, results=res)
    ctx.register(body)
    return _rep(body, ctx)


def get_path(x, path):
    for part in path.split("."):
        if isinstance(x, list):
            x = x[int(part)]
        else:
            x = x[part]
    return x


def key_order(body, path):
    try:
        x = get_path(body, path) if path else body
        return list(x.keys())
    except Exception:
        return None


def reset_classes(base, keys, classes):
    """Bring the classes a scenario uses to a fresh state (master key)."""
    mh = auth_headers("master", keys, {})
    for c in classes:
        st, _ = http(base, "DELETE", "/purge/" + c, headers=mh)
        if st != 200:  # fallback: delete objects one by one
            for _ in range(20):
                st, js = http(base, "GET", "/classes/" + c, query={"limit": "1000", "keys": "objectId"}, headers=mh)
                res = (js or {}).get("results") if isinstance(js, dict) else None
                if not res:
                    break
                for r in res:
                    http(base, "DELETE", "/classes/%s/%s" % (c, r["objectId"]), headers=mh)
        if not c.startswith("_"):
            http(base, "DELETE", "/schemas/" + c, headers=mh)


def literal_text(scenario):
    return json.dumps([s["request"] for s in scenario["steps"]])


def run_scenario(base, keys, scenario, on_step):
    """Run one scenario; on_step(step, status, normalised_body, raw_body, key_orders) per step."""
    reset_classes(base, keys, scenario.get("classes", []))
    ctx = NormCtx(literal_text(scenario))
    vars_ = {}
    for step in scenario["steps"]:
        r = step["request"]
        path = substitute(r["path"], vars_)
        query = {k: substitute(v, vars_) for k, v in (r.get("query") or {}).items()}
        headers = auth_headers(substitute(r.get("auth", "client"), vars_), keys, vars_)
        headers.update(substitute(r.get("headers") or {}, vars_))
        body = substitute(r["body"], vars_) if "body" in r else None
        raw = substitute(r["rawBody"], vars_) if "rawBody" in r else None
        st, js = http(base, r["method"], path, query, headers, body, raw, r.get("contentType"))
        for var, p in (step.get("capture") or {}).items():
            try:
                vars_[var] = get_path(js, p)
            except Exception:
                pass
        ko = {p: key_order(js, p) for p in (step.get("response", {}).get("keyOrder") or step.get("recordKeyOrder") or {})}
        on_step(step, st, normalise(js, ctx, step), js, ko)


def jdump(x):
    return json.dumps(x, indent=1, sort_keys=True, ensure_ascii=False).splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url")
    ap.add_argument("--corpus", default=__import__("os").path.join(__import__("os").path.dirname(__import__("os").path.abspath(__file__)), "..", "corpus.json"))
    ap.add_argument("--app-id", default="app")
    ap.add_argument("--master-key", default="master")
    ap.add_argument("--rest-key", default="rest")
    ap.add_argument("--maintenance-key", default="maint")
    ap.add_argument("--only", help="run only scenarios whose name contains this")
    ap.add_argument("--skip-defects", action="store_true", help="do not count steps marked parseServerDefect")
    ap.add_argument("--skip-postgres", action="store_true", help="do not count steps marked adapter: postgres")
    ap.add_argument("--include-differ", action="store_true", help="also count steps marked expectedToDiffer")
    ap.add_argument("--no-custom-object-id", action="store_true",
                    help="the server under test does NOT allow custom objectIds: run only the scenarios recorded that way "
                         "(default: run the scenarios recorded with allowCustomObjectId on)")
    ap.add_argument("--quiet", action="store_true", help="print only FAIL lines and the summary")
    a = ap.parse_args()
    corpus = json.load(open(a.corpus))
    keys = Keys(a.app_id, a.master_key, a.rest_key, a.maintenance_key)
    tally = {"pass": 0, "fail": 0, "skip": 0}
    failed = []

    for sc in corpus["scenarios"]:
        if a.only and a.only not in sc["name"]:
            continue
        if bool((sc.get("serverOptions") or {}).get("allowCustomObjectId", True)) == bool(a.no_custom_object_id):
            continue

        def on_step(step, st, nb, raw, ko, sc=sc):
            label = "%s / %s" % (sc["name"], step["name"])
            why = None
            if step.get("unstable"):
                why = "unstable: Parse Server answered differently on two recordings"
            elif step.get("expectedToDiffer") and not a.include_differ:
                why = "expectedToDiffer"
            elif step.get("parseServerDefect") and a.skip_defects:
                why = "parseServerDefect"
            elif step.get("adapter") == "postgres" and a.skip_postgres:
                why = "adapter postgres"
            exp = step["response"]
            problems = []
            if st != exp["status"]:
                problems.append("status: expected %s, got %s" % (exp["status"], st))
            cmp = step.get("compare", "exact")
            if cmp == "status+code":
                ec = exp.get("body", {}).get("code") if isinstance(exp.get("body"), dict) else None
                ac = nb.get("code") if isinstance(nb, dict) else None
                if ec != ac:
                    problems.append("code: expected %s, got %s" % (ec, ac))
            elif cmp == "exact" and nb != exp.get("body"):
                problems.append("body:\n    " + "\n    ".join(
                    difflib.unified_diff(jdump(exp.get("body")), jdump(nb), "expected", "actual", lineterm="", n=2)))
            for p, order in (exp.get("keyOrder") or {}).items():
                if ko.get(p) != order:
                    problems.append("key order at %r: expected %s, got %s" % (p, order, ko.get(p)))
            if why:
                tally["skip"] += 1
                if not a.quiet:
                    print("SKIP  %s (%s%s)" % (label, why, "" if not problems else ", differs"))
                return
            if problems:
                tally["fail"] += 1
                failed.append(label)
                print("FAIL  %s\n  %s" % (label, "\n  ".join(problems)))
                if step.get("parseServerDefect"):
                    print("  (note: Parse Server's answer is marked as a defect: %s)" % step["parseServerDefect"])
            else:
                tally["pass"] += 1
                if not a.quiet:
                    print("PASS  %s" % label)

        run_scenario(a.url, keys, sc, on_step)
    if tally["skip"]:
        print("(%d skipped)" % tally["skip"])
    print("%d passed, %d failed" % (tally["pass"], tally["fail"]))
    sys.exit(1 if tally["fail"] else 0)


if __name__ == "__main__":
    main()
