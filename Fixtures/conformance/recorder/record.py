"""Record a conformance corpus from a real Parse Server (see ../README.md).

  python3 record.py PS_URL PS_NO_CUSTOM_IDS_URL                     # corpus.json, unstable.json from scenarios.py
  python3 record.py PS_URL PS_NO_CUSTOM_IDS_URL --scenarios extensions --corpus ../corpus-extensions.json \
      --unstable ../unstable-extensions.json

Each scenario runs twice from a fresh state; a step whose two normalised answers differ is marked
`unstable`. Answers with HTTP 5xx or SQL text are marked `parseServerDefect` (unless the scenario
already says why). The raw, un-normalised answers of the first run go to --raw (default: a file in
the system's temporary folder, never into the repository: they hold live session tokens).
"""
import argparse, importlib, json, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import replay

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("url", nargs="?", default="http://127.0.0.1:1451/parse")
ap.add_argument("url_without_custom_ids", nargs="?", default="http://127.0.0.1:1452/parse",
                help="an instance over the same database WITHOUT allowCustomObjectId")
ap.add_argument("--scenarios", default="scenarios", help="the module (in this folder) whose SC list is recorded")
ap.add_argument("--corpus", default=os.path.join(HERE, "..", "corpus.json"))
ap.add_argument("--unstable", default=os.path.join(HERE, "..", "unstable.json"))
ap.add_argument("--raw", default=os.path.join(tempfile.gettempdir(), "conformance-recorded-raw.json"))
a = ap.parse_args()
scenarios = importlib.import_module(a.scenarios)
keys = replay.Keys()
SQL = re.compile(r'(relation "|column "|syntax error|violates|duplicate key|SELECT |INSERT INTO|UPDATE "|\bpg_|error: )')


def code(body):
    return body.get("code") if isinstance(body, dict) else None


def run_all():
    res = {}
    for sc in scenarios.SC:
        def on(step, st, nb, raw, ko, sc=sc):
            res[(sc["name"], step["name"])] = {"status": st, "body": nb, "keyOrder": ko, "raw": raw}
        base = a.url if sc["serverOptions"].get("allowCustomObjectId", True) else a.url_without_custom_ids
        replay.run_scenario(base, keys, sc, on)
    return res


t = time.time(); r1 = run_all(); r2 = run_all(); print("ran twice in %.1fs" % (time.time() - t))
unstable = []
out = {"scenarios": []}
for sc in scenarios.SC:
    names = [s["name"] for s in sc["steps"]]
    assert len(names) == len(set(names)), ("dup step names", sc["name"])
    for s in sc["steps"]:
        r1s, r2s = r1[(sc["name"], s["name"])], r2[(sc["name"], s["name"])]
        resp = {"status": r1s["status"], "body": r1s["body"]}
        ko = r1s["keyOrder"]
        if ko: resp["keyOrder"] = ko
        s.pop("recordKeyOrder", None)
        s["response"] = resp
        ku = s.pop("knownUnstable", None)
        if s.get("compare") == "status+code":  # only the status and the Parse error code are compared
            same = (r1s["status"], code(r1s["body"])) == (r2s["status"], code(r2s["body"]))
        else:
            same = (r1s["status"], r1s["body"], r1s["keyOrder"]) == (r2s["status"], r2s["body"], r2s["keyOrder"])
        if ku or not same:
            s["unstable"] = True
            unstable.append({"scenario": sc["name"], "step": s["name"], "why": ku or "the two recordings differ",
                             "run1": {"status": r1s["status"], "body": r1s["body"], "keyOrder": r1s["keyOrder"]},
                             "run2": {"status": r2s["status"], "body": r2s["body"], "keyOrder": r2s["keyOrder"]}})
        txt = json.dumps(r1s["raw"])
        if not s.get("parseServerDefect"):
            if r1s["status"] >= 500 and SQL.search(txt):
                s["parseServerDefect"] = "HTTP %d with the PostgreSQL error object (SQL text) in the body; a clean server answers 4xx with a Parse error code" % r1s["status"]
            elif r1s["status"] >= 500:
                s["parseServerDefect"] = "HTTP %d Internal server error for invalid input; a clean server answers 4xx with a Parse error code" % r1s["status"]
            elif SQL.search(txt):
                s["parseServerDefect"] = "database/SQL text leaks into the answer"
    out["scenarios"].append(sc)
out["format"] = "parse-conformance-corpus/1"
out["recordedAgainst"] = {"server": "parse-server 7.1.0 (parse-community), node " + subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip(),
    "database": "PostgreSQL 15 (pg-promise 11.7.8)", "recordedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "options": {"appId": "app", "masterKey": "master", "restAPIKey": "rest", "maintenanceKey": "maint", "mountPath": "/parse",
                "allowCustomObjectId": "true, except scenarios whose serverOptions say false (recorded on a second instance without it)",
                "filesAdapter": "@parse/fs-files-adapter (the default GridFS adapter needs MongoDB)", "everything else": "Parse Server 7.1.0 defaults"},
    "runs": 2}
out["unstableSteps"] = [{"scenario": u["scenario"], "step": u["step"], "why": u["why"]} for u in unstable]
json.dump(out, open(a.corpus, "w"), indent=1, ensure_ascii=False)
json.dump(unstable, open(a.unstable, "w"), indent=1, ensure_ascii=False)
json.dump({"corpus": out, "unstable": unstable, "raw1": {"%s / %s" % k: v["raw"] for k, v in r1.items()}}, open(a.raw, "w"), indent=1)
print("steps", sum(len(s["steps"]) for s in out["scenarios"]), "unstable", len(unstable))
