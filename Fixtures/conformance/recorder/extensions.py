"""Scenarios recorded after the first corpus (corpus-extensions.json): behaviours scenarios.py
did not reach. Same helpers and format as scenarios.py; `record.py --scenarios extensions`.
`/schemas/_User` answers are compared by status and code only: that class keeps the fields other
scenarios add (purging never drops a system class), so its field list depends on what ran before."""
from scenarios import st, P, M

SC = []


def scenario(name, classes, steps, **kw):
    d = {"name": name, "classes": classes, "steps": steps, "serverOptions": {"allowCustomObjectId": True}}
    d.update(kw)
    SC.append(d)


def text(term):
    return {"$text": {"$search": {"$term": term}}}


# ---------------------------------------------------------------- the Parse guide's GameScore
G = "GameScore"
scores = [("gs00000001", 1337, "Sean Plott", False), ("gs00000002", 2500, "Jonathan Walsh", False),
          ("gs00000003", 980, "Sean Sean Plott", True), ("gs00000004", 4120, "Marta Sean", False),
          ("gs00000005", 75, "Dave Plott", True)]
scenario("gamescore", [G, "CfNote"], [
    st("create GameScore %s" % oid, "POST", "/classes/" + G, M,
       body={"objectId": oid, "score": score, "playerName": name, "cheatMode": cheat})
    for oid, score, name, cheat in scores
] + [
    st("order=score", "GET", "/classes/" + G, query={"order": "score", "keys": "playerName,score"}),
    st("order=-score", "GET", "/classes/" + G, query={"order": "-score", "keys": "score"}),
    st("order=-score with limit and where", "GET", "/classes/" + G,
       query={"where": {"score": {"$gte": 1000}}, "order": "-score", "limit": 2, "keys": "score"}),
    st("order=cheatMode,-score", "GET", "/classes/" + G, query={"order": "cheatMode,-score", "keys": "score,cheatMode"}),
    st("$text with order=score", "GET", "/classes/" + G, query={"where": {"playerName": text("Sean")}, "order": "score", "keys": "playerName,score"}),
    st("$text with order=-score", "GET", "/classes/" + G, query={"where": {"playerName": text("Sean")}, "order": "-score", "keys": "playerName"}),
    st("$text with order=$score, no keys", "GET", "/classes/" + G, query={"where": {"playerName": text("Plott")}, "order": "$score"}),
    st("$text count", "GET", "/classes/" + G, query={"where": {"playerName": text("Plott")}, "count": 1, "limit": 0}),
    st("note for $text without a score field", "POST", "/classes/CfNote", M, body={"objectId": "note000001", "body": "sean writes"}),
    st("$text with order=$score on a class without score", "GET", "/classes/CfNote",
       query={"where": {"body": text("sean")}, "order": "$score", "keys": "body"}),
    st("order=score on a class without score", "GET", "/classes/CfNote", query={"order": "score", "keys": "body"}),
])

# ---------------------------------------------------------------- protectedFields (CLP), every kind of entry
PF = "CfPF"
users = {"pfanon": None, "pfuser01": "u1", "pfuser02": "u2", "pfstaff1": "u3", "pfowner1": "u4", "pfviewer": "u5"}
pf_steps = [
    st("signup %s" % name, "POST", "/users", body={"objectId": name, "username": name, "password": "pw", "email": name + "@example.com"},
       capture={tok + "tok": "sessionToken"})
    for name, tok in users.items() if tok
] + [
    st("role Staff with pfstaff1", "POST", "/roles", M,
       body={"name": "Staff", "ACL": {"*": {"read": True}}, "users": {"__op": "AddRelation", "objects": [P("_User", "pfstaff1")]}}),
    st("schema with protectedFields", "POST", "/schemas/" + PF, M, body={
        "className": PF,
        "fields": {"a": {"type": "String"}, "b": {"type": "String"}, "c": {"type": "String"}, "d": {"type": "String"},
                   "owner": {"type": "Pointer", "targetClass": "_User"}, "viewers": {"type": "Array"}},
        "classLevelPermissions": {"find": {"*": True}, "get": {"*": True}, "count": {"*": True}, "create": {"*": True},
                                  "update": {"*": True}, "delete": {"*": True}, "addField": {},
                                  "protectedFields": {"*": ["a", "b", "c", "owner"], "authenticated": ["a", "b", "c"],
                                                      "role:Staff": ["a", "d"], "pfuser02": ["c"], "userField:owner": ["b"],
                                                      "userField:viewers": []}}}),
    st("object owned by pfowner1", "POST", "/classes/" + PF, M, body={
        "objectId": "pf00000001", "a": "a1", "b": "b1", "c": "c1", "d": "d1", "owner": P("_User", "pfowner1"),
        "viewers": [P("_User", "pfviewer")]}),
    st("object owned by nobody", "POST", "/classes/" + PF, M, body={"objectId": "pf00000002", "a": "a2", "b": "b2", "c": "c2", "d": "d2"}),
    st("anonymous get", "GET", "/classes/%s/pf00000001" % PF),
    st("anonymous find", "GET", "/classes/" + PF, query={"order": "a"}),
    st("authenticated get", "GET", "/classes/%s/pf00000001" % PF, "session:u1tok"),
    st("user entry get", "GET", "/classes/%s/pf00000001" % PF, "session:u2tok"),
    st("role entry get", "GET", "/classes/%s/pf00000001" % PF, "session:u3tok"),
    st("role entry find", "GET", "/classes/" + PF, "session:u3tok", query={"order": "d"}),
    st("userField owner get own", "GET", "/classes/%s/pf00000001" % PF, "session:u4tok"),
    st("userField owner get other", "GET", "/classes/%s/pf00000002" % PF, "session:u4tok"),
    st("userField owner find", "GET", "/classes/" + PF, "session:u4tok", query={"order": "d"}),
    st("userField array viewer get", "GET", "/classes/%s/pf00000001" % PF, "session:u5tok"),
    st("master get", "GET", "/classes/%s/pf00000001" % PF, M),
    st("anonymous query on protected a", "GET", "/classes/" + PF, query={"where": {"a": "a1"}}),
    st("anonymous query on protected owner", "GET", "/classes/" + PF, query={"where": {"owner": {"$exists": True}}}),
    st("anonymous query on open d", "GET", "/classes/" + PF, query={"where": {"d": "d1"}, "keys": "d"}),
    st("user entry query on a (not protected for it)", "GET", "/classes/" + PF, "session:u2tok", query={"where": {"a": "a1"}, "keys": "a"}),
    st("user entry query on c", "GET", "/classes/" + PF, "session:u2tok", query={"where": {"c": "c1"}}),
    st("role entry query on b", "GET", "/classes/" + PF, "session:u3tok", query={"where": {"b": "b1"}, "keys": "b"}),
    st("anonymous count with where on protected", "GET", "/classes/" + PF, query={"where": {"b": "b1"}, "count": 1, "limit": 0}),
    st("anonymous keys asks for protected", "GET", "/classes/" + PF, query={"keys": "a,d", "order": "d"}),
    st("anonymous $or on protected (not checked by Parse Server 7.1)", "GET", "/classes/" + PF,
       query={"where": {"$or": [{"a": "a1"}, {"a": "zz"}]}, "keys": "d"}),
    st("reference to a protected object", "POST", "/classes/CfPFRef", M, body={"objectId": "pfref00001", "target": P(PF, "pf00000001")}),
    st("anonymous include hides protected", "GET", "/classes/CfPFRef", query={"include": "target"}),
    st("role entry include", "GET", "/classes/CfPFRef", "session:u3tok", query={"include": "target"}),
    st("protect _User.nick too", "PUT", "/schemas/_User", M, compare="status+code", body={"fields": {"nick": {"type": "String"}},
        "classLevelPermissions": {"find": {"*": True}, "count": {"*": True}, "get": {"*": True}, "create": {"*": True},
                                  "update": {"*": True}, "delete": {"*": True}, "addField": {"*": True},
                                  "protectedFields": {"*": ["nick"]}}}),
    st("pfuser01 sets nick, public read", "PUT", "/users/pfuser01", "session:u1tok",
       body={"nick": "one", "ACL": {"*": {"read": True}, "pfuser01": {"read": True, "write": True}}}),
    st("anonymous get user: nick and email hidden", "GET", "/users/pfuser01"),
    st("other user get user: nick and email hidden", "GET", "/users/pfuser01", "session:u2tok"),
    st("self get user: nick and email shown", "GET", "/users/pfuser01", "session:u1tok"),
    st("anonymous query on user nick", "GET", "/users", query={"where": {"nick": "one"}}),
    st("_User protectedFields in the schema", "GET", "/schemas/_User", M, compare="status+code"),
    st("restore _User permissions", "PUT", "/schemas/_User", M, compare="status+code", body={
        "fields": {"nick": {"__op": "Delete"}},
        "classLevelPermissions": {"find": {"*": True}, "count": {"*": True}, "get": {"*": True}, "create": {"*": True},
                                  "update": {"*": True}, "delete": {"*": True}, "addField": {"*": True},
                                  "protectedFields": {"*": []}}}),
]
scenario("protected-fields", ["_User", "_Session", "_Role", PF, "CfPFRef"], pf_steps)

# ---------------------------------------------------------------- sessions by token and by id, log-out
U = ["_User", "_Session"]
scenario("sessions-more", U, [
    st("signup kim", "POST", "/users", body={"username": "kim", "password": "pw-kim"}, capture={"kim": "objectId", "ktok": "sessionToken"}),
    st("login kim again", "POST", "/login", body={"username": "kim", "password": "pw-kim"}, capture={"ktok2": "sessionToken"}),
    st("login kim a third time", "GET", "/login", query={"username": "kim", "password": "pw-kim"}, capture={"ktok3": "sessionToken"}),
    st("signup lee", "POST", "/users", body={"username": "lee", "password": "pw-lee"}, capture={"lee": "objectId", "ltok": "sessionToken"}),
    st("lee's session id", "GET", "/sessions/me", "session:ltok", capture={"lsid": "objectId"}),
    st("sessions/me with the master key and a token", "GET", "/sessions/me", M, headers={"X-Parse-Session-Token": "{{ktok2}}"},
       capture={"ksid2": "objectId"}),
    st("sessions/me with the master key, no token", "GET", "/sessions/me", M),
    st("sessions/me with the master key and a bogus token", "GET", "/sessions/me", M, headers={"X-Parse-Session-Token": "r:bogus"}),
    st("PUT sessions/me", "PUT", "/sessions/me", "session:ktok", body={"customField": 1}),
    st("update own session by id", "PUT", "/sessions/{{ksid2}}", "session:ktok", body={"customField": 2}),
    st("get own session by id after update", "GET", "/sessions/{{ksid2}}", "session:ktok", query={"keys": "customField"}),
    st("get another user's session by id", "GET", "/sessions/{{lsid}}", "session:ktok"),
    st("update another user's session by id", "PUT", "/sessions/{{lsid}}", "session:ktok", body={"customField": 3}),
    st("delete another user's session by id", "DELETE", "/sessions/{{lsid}}", "session:ktok"),
    st("get a session by id without a token", "GET", "/sessions/{{lsid}}"),
    st("master gets a session by id", "GET", "/sessions/{{lsid}}", M),
    st("users/me with the master key and a token", "GET", "/users/me", M, headers={"X-Parse-Session-Token": "{{ktok}}"}),
    st("users/me with the master key, no token", "GET", "/users/me", M),
    st("logout with the master key and a token", "POST", "/logout", M, headers={"X-Parse-Session-Token": "{{ktok2}}"}),
    st("token ended by a master logout", "GET", "/users/me", "session:ktok2"),
    st("logout with the master key and a bogus token", "POST", "/logout", M, headers={"X-Parse-Session-Token": "r:bogus"}),
    st("logout with a bogus token", "POST", "/logout", "session:r:bogus"),
    st("master deletes a session by id", "DELETE", "/sessions/{{lsid}}", M),
    st("token of a session the master deleted", "GET", "/users/me", "session:ltok"),
    st("sessions of kim as master", "GET", "/sessions", M, query={"where": {"user": P("_User", "{{kim}}")}, "count": 1, "limit": 0}),
    st("logout kim", "POST", "/logout", "session:ktok"),
    st("sessions/me after logout", "GET", "/sessions/me", "session:ktok"),
    st("third kim session still valid", "GET", "/sessions/me", "session:ktok3", query={"keys": "user"}),
])

# ---------------------------------------------------------------- verifyPassword and log-in rules
scenario("verify-password", U, [
    st("signup vera", "POST", "/users", body={"username": "vera", "password": "pw-vera", "email": "vera@example.com", "age": 7},
       capture={"vera": "objectId", "vtok": "sessionToken"}),
    st("signup a user named as vera's email", "POST", "/users", body={"username": "other@example.com", "password": "pw-other"}),
    st("verifyPassword GET", "GET", "/verifyPassword", query={"username": "vera", "password": "pw-vera"}),
    st("verifyPassword POST", "POST", "/verifyPassword", body={"username": "vera", "password": "pw-vera"}),
    st("verifyPassword by email", "POST", "/verifyPassword", body={"email": "vera@example.com", "password": "pw-vera"}),
    st("verifyPassword with a session token", "GET", "/verifyPassword", "session:vtok", query={"username": "vera", "password": "pw-vera"}),
    st("verifyPassword wrong password", "GET", "/verifyPassword", query={"username": "vera", "password": "nope"}),
    st("verifyPassword unknown user", "POST", "/verifyPassword", body={"username": "nobody", "password": "x"}),
    st("verifyPassword without password", "GET", "/verifyPassword", query={"username": "vera"}),
    st("verifyPassword without username", "POST", "/verifyPassword", body={"password": "pw-vera"}),
    st("verifyPassword password not a string", "POST", "/verifyPassword", body={"username": "vera", "password": 5}),
    st("verifyPassword made no session", "GET", "/sessions", M, query={"where": {"user": P("_User", "{{vera}}")}, "count": 1, "limit": 0}),
    st("login by email in username", "POST", "/login", body={"username": "vera@example.com", "password": "pw-vera"}),
    st("login by email field", "POST", "/login", body={"email": "vera@example.com", "password": "pw-vera"}),
    st("login username and email both", "POST", "/login", body={"username": "vera", "email": "vera@example.com", "password": "pw-vera"}),
    st("login username and wrong email", "POST", "/login", body={"username": "vera", "email": "x@example.com", "password": "pw-vera"}),
    st("lock vera out with an empty ACL", "PUT", "/users/{{vera}}", M, body={"ACL": {}}),
    st("login of a locked-out user", "POST", "/login", body={"username": "vera", "password": "pw-vera"}),
    st("verifyPassword of a locked-out user", "GET", "/verifyPassword", query={"username": "vera", "password": "pw-vera"}),
    st("verifyPassword of a locked-out user, master", "GET", "/verifyPassword", M, query={"username": "vera", "password": "pw-vera"}),
])

# ---------------------------------------------------------------- emails
scenario("emails", U, [
    st("signup with email \"\"", "POST", "/users", body={"username": "e1", "password": "pw", "email": ""}, capture={"e1": "objectId", "e1tok": "sessionToken"}),
    st("user with email \"\" as master", "GET", "/users/{{e1}}", M),
    st("second signup with email \"\"", "POST", "/users", body={"username": "e2", "password": "pw", "email": ""}),
    st("signup with email null", "POST", "/users", body={"username": "e3", "password": "pw", "email": None}, capture={"e3": "objectId", "e3tok": "sessionToken"}),
    st("user with email null as master", "GET", "/users/{{e3}}", M),
    st("signup with a real email", "POST", "/users", body={"username": "e4", "password": "pw", "email": "e4@example.com"}, capture={"e4": "objectId", "e4tok": "sessionToken"}),
    st("update email to \"\" when another user has \"\"", "PUT", "/users/{{e4}}", "session:e4tok", body={"email": ""}),
    st("update email to null", "PUT", "/users/{{e4}}", "session:e4tok", body={"email": None}),
    st("user after email null", "GET", "/users/{{e4}}", M),
    st("update email to a taken one, other case", "PUT", "/users/{{e3}}", "session:e3tok", body={"email": "E4@EXAMPLE.COM"}),
    st("update email to a free one", "PUT", "/users/{{e3}}", "session:e3tok", body={"email": "e3@example.com"}),
    st("e1 moves off \"\"", "PUT", "/users/{{e1}}", M, body={"email": "x1@example.com"}),
    st("now e3 clears it with \"\"", "PUT", "/users/{{e3}}", "session:e3tok", body={"email": ""}),
    st("e3 after email \"\"", "GET", "/users/{{e3}}", M),
])

# ---------------------------------------------------------------- class names the classes routes get
scenario("class-names", ["CfNames"], [
    st("seed", "POST", "/classes/CfNames", M, body={"objectId": "names00001", "n": 1}),
    st("get by id, bad class name, client", "GET", "/classes/1Bad/abc"),
    st("get by id, bad class name, master", "GET", "/classes/1Bad/abc", M),
    st("update, bad class name, client", "PUT", "/classes/1Bad/abc", body={"n": 1}),
    st("update, bad class name, master", "PUT", "/classes/1Bad/abc", M, body={"n": 1}),
    st("delete, bad class name, client", "DELETE", "/classes/1Bad/abc"),
    st("delete, bad class name, master", "DELETE", "/classes/1Bad/abc", M),
    st("count, bad class name, master", "GET", "/classes/Bad-Name", M, query={"count": 1, "limit": 0}),
    st("find _Bad as master", "GET", "/classes/_Bad", M),
    st("batch create, bad class name, master", "POST", "/batch", M,
       body={"requests": [{"method": "POST", "path": "/parse/classes/1Bad", "body": {"n": 1}},
                          {"method": "GET", "path": "/parse/classes/1Bad"}]}),
    st("batch GET of a missing object", "POST", "/batch",
       body={"requests": [{"method": "GET", "path": "/parse/classes/CfNames/nosuch0001", "body": {}},
                          {"method": "GET", "path": "/parse/classes/CfNames/names00001", "body": {}}]}),
    st("objectId as a boolean", "POST", "/classes/CfNames", body={"objectId": True, "n": 2}),
    st("objectId as an object", "POST", "/classes/CfNames", body={"objectId": {"a": 1}, "n": 2}),
    st("objectId as a number, master", "POST", "/classes/CfNames", M, body={"objectId": 7, "n": 2}),
    st("createdAt as a Date in a create", "POST", "/classes/CfNames", body={"objectId": "names00002", "createdAt": {"__type": "Date", "iso": "2020-01-01T00:00:00.000Z"}}),
    st("object created with createdAt as a Date", "GET", "/classes/CfNames/names00002", M),
    st("updatedAt as a string in a create", "POST", "/classes/CfNames", body={"updatedAt": "2020-01-01T00:00:00.000Z"}),
    st("createdAt as a string in an update", "PUT", "/classes/CfNames/names00001", body={"createdAt": "2020-01-01T00:00:00.000Z"}),
    st("Polygon of 3 points, 2 distinct", "POST", "/classes/CfNames", body={"poly": {"__type": "Polygon", "coordinates": [[0, 0], [1, 1], [0, 0]]}}),
    st("Polygon of 1 point", "POST", "/classes/CfNames", body={"poly": {"__type": "Polygon", "coordinates": [[0, 0]]}}),
    st("Polygon given closed", "POST", "/classes/CfNames", M, body={"objectId": "names00003", "poly": {"__type": "Polygon", "coordinates": [[0, 0], [0, 1], [1, 1], [0, 0]]}}),
    st("closed Polygon read back", "GET", "/classes/CfNames/names00003", M, query={"keys": "poly"}),
    st("config as master", "GET", "/config", M),
    st("config as client", "GET", "/config"),
    st("purge as master", "DELETE", "/purge/CfNames", M),
    st("after purge", "GET", "/classes/CfNames", M),
    st("purge a missing class", "DELETE", "/purge/CfNoSuchClass", M),
])
