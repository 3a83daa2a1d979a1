#!/usr/bin/env python3
"""Writes sdk_commands.json, the storefront SDK's shared test vectors.

The JSON file is what the tests read (C++ tests/sdk/ and the browser test);
this script only spares writing 5,000-character strings and 8 KB objects by
hand. Run it after editing, and commit both files.

Each vector: command, args (the positional arguments of LiveChat.push after
the name), verdict ("accept" or "reject"), and for a rejection a substring
the warning must contain. Sequences check the rate windows with a hand-moved
clock: each step may advance the clock (ms) before the call.
"""
import json
import os

vectors = []


def ok(command, *args, note=""):
    vectors.append({"command": command, "args": list(args), "verdict": "accept", **({"note": note} if note else {})})


def bad(command, args, warning, note=""):
    vectors.append({"command": command, "args": list(args), "verdict": "reject", "warning": warning,
                    **({"note": note} if note else {})})


def js_size(value):
    """Bytes of JSON.stringify(value) in UTF-8 (JavaScript writes 3.0 as 3)."""
    def js(v):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, dict):
            return {k: js(x) for k, x in v.items()}
        if isinstance(v, list):
            return [js(x) for x in v]
        return v
    return len(json.dumps(js(value), separators=(",", ":"), ensure_ascii=False).encode())


def sized(base, total, pad_key="pad"):
    """`base` plus a string member that makes the compact JSON exactly `total` bytes."""
    obj = dict(base)
    obj[pad_key] = ""
    obj[pad_key] = "x" * (total - js_size(obj))
    assert js_size(obj) == total
    return obj


# ---- unknown command, argument count ----
bad("chat:explode", [], 'unknown command "chat:explode"')
bad("", [], 'unknown command ""')
bad("Chat:Open", [], 'unknown command "Chat:Open"', note="names are case-sensitive")

# ---- visibility: no arguments ----
for c in ["chat:open", "chat:close", "chat:toggle", "chat:show", "chat:hide", "launcher:show", "launcher:hide"]:
    ok(c)
    bad(c, [True], c + ": takes no arguments (got 1)")

# ---- messaging ----
ok("message:send", "Hello")
ok("message:send", "é" * 5000, note="5,000 code points (10,000 UTF-8 bytes): at the limit")
ok("message:send", "😀" * 5000, note="astral characters count once each")
bad("message:send", ["a" * 5001], "message:send: text must be at most 5000 characters (got 5001)")
bad("message:send", ["😀" * 5001], "at most 5000 characters (got 5001)")
bad("message:send", [""], "message:send: text must not be empty")
bad("message:send", ["  \n\t "], "text must not be empty", note="blank is empty")
bad("message:send", [42], "message:send: text must be a string (got number)")
bad("message:send", [None], "text must be a string (got null)")
bad("message:send", [["Hello"]], "text must be a string (got array)")
bad("message:send", [], "message:send: expects 1 argument (text), got 0")
bad("message:send", ["a", "b"], "expects 1 argument (text), got 2")
ok("typing:set", True)
ok("typing:set", False)
bad("typing:set", ["true"], "typing:set: active must be true or false (got string)")
bad("typing:set", [1], "active must be true or false (got number)")
bad("typing:set", [], "typing:set: expects 1 argument (active), got 0")

# ---- identity ----
ok("identify", {"email": "ana@example.com"})
ok("identify", {"id": "cust_42", "email": "ana@example.com", "name": "Ana Lima", "firstName": "Ana",
                "lastName": "Lima", "phone": "+55 (11) 91234-5678"})
ok("identify", {"id": 42})
ok("identify", {"name": "n" * 255})
bad("identify", [{"name": "n" * 256}], "identify: user.name must be at most 255 characters (got 256)")
bad("identify", [{}], "identify: user must have at least one of id, email, name")
bad("identify", [{"email": "ana@example.com", "plan": "gold"}], 'identify: user has unknown key "plan"')
bad("identify", ["ana@example.com"], "identify: user must be an object (got string)")
bad("identify", [{"email": "not-an-email"}], "identify: user.email must be an email address")
bad("identify", [{"email": "a@b"}], "user.email must be an email address", note="domain needs a dot")
bad("identify", [{"email": "a b@example.com"}], "user.email must be an email address")
bad("identify", [{"email": "a@@example.com"}], "user.email must be an email address")
bad("identify", [{"phone": "call me"}], "identify: user.phone must be a phone number")
bad("identify", [{"id": -1}], "identify: user.id must be a whole number of 0 or more")
bad("identify", [{"id": 1.5}], "user.id must be a whole number")
bad("identify", [{"id": ""}], "user.id must not be empty")
bad("identify", [{"id": True}], "user.id must be a string or a number (got boolean)")
bad("identify", [{"firstName": 7}], "user.firstName must be a string (got number)")
bad("identify", [], "identify: expects 1 argument (user), got 0")
for c in ["logout", "session:reset"]:
    ok(c)
    bad(c, ["now"], c + ": takes no arguments (got 1)")

# ---- conversation control ----
ok("escalate")
ok("escalate", "Wants a refund")
ok("escalate", "r" * 500)
bad("escalate", ["r" * 501], "escalate: reason must be at most 500 characters (got 501)")
bad("escalate", [""], "escalate: reason must not be empty")
bad("escalate", [{"reason": "x"}], "escalate: reason must be a string (got object)")
bad("escalate", ["a", "b"], "escalate: expects 0 to 1 arguments ([reason]), got 2")
for c, name in [("trigger:run", "triggerId"), ("article:show", "articleId")]:
    ok(c, "welcome_back-2")
    ok(c, "t" * 64)
    bad(c, ["t" * 65], c + ": " + name + " must be 1 to 64 characters")
    bad(c, [""], name + " must be 1 to 64 characters")
    bad(c, ["has space"], c + ": " + name + " may only contain letters, digits")
    bad(c, [12], name + " must be a string (got number)")
    bad(c, [], c + ": expects 1 argument (" + name + "), got 0")

# ---- pre-chat ----
ok("prechat:submit", {"name": "Ana", "email": "ana@example.com", "orderNumber": "#1001"})
ok("prechat:submit", {"note": ""}, note="a custom field may be left empty")
ok("prechat:submit", {"f%d" % i: "v" for i in range(20)})
bad("prechat:submit", [{"f%d" % i: "v" for i in range(21)}], "prechat:submit: fields must have at most 20 fields (got 21)")
bad("prechat:submit", [{}], "prechat:submit: fields must have at least one field")
bad("prechat:submit", [{"email": "nope"}], "prechat:submit: fields.email must be an email address")
bad("prechat:submit", [{"phone": "abc"}], "fields.phone must be a phone number")
bad("prechat:submit", [{"1st": "x"}], "prechat:submit: field names must start with a letter")
bad("prechat:submit", [{"my-field": "x"}], "field names must start with a letter and hold only letters")
bad("prechat:submit", [{"topic": 3}], "prechat:submit: fields.topic must be a string (got number)")
ok("prechat:submit", {"topic": "t" * 1000})
bad("prechat:submit", [{"topic": "t" * 1001}], "fields.topic must be at most 1000 characters (got 1001)")
bad("prechat:submit", [["Ana"]], "prechat:submit: fields must be an object (got array)")
ok("prechat:skip")
bad("prechat:skip", [{}], "prechat:skip: takes no arguments (got 1)")
ok("prechat:field", "email", "ana@example.com")
ok("prechat:field", "orderNumber", "")
bad("prechat:field", ["email", "ana"], "prechat:field: value must be an email address")
bad("prechat:field", ["email"], "prechat:field: expects 2 arguments (name, value), got 1")
bad("prechat:field", [{"email": "ana@example.com"}, "x"], "prechat:field: name must be a string (got object)")
bad("prechat:field", ["bad name", "x"], "prechat:field: name must start with a letter")
bad("prechat:field", ["topic", None], "prechat:field: value must be a string (got null)")

# ---- tracking ----
ok("event:track", "viewed_size_guide")
ok("event:track", "added_to_wishlist", {"sku": "TS-1", "price": 19.99, "onSale": True})
ok("event:track", "e" * 100)
bad("event:track", ["e" * 101], "event:track: name must be at most 100 characters (got 101)")
bad("event:track", [""], "event:track: name must not be empty")
bad("event:track", [{"name": "x"}], "event:track: name must be a string (got object)")
bad("event:track", ["x", "y"], "event:track: properties must be an object (got string)")
ok("event:track", "big", sized({}, 2048))
bad("event:track", ["big", sized({}, 2049)], "event:track: properties must be at most 2048 bytes as JSON (got 2049)")
bad("event:track", [], "event:track: expects 1 to 2 arguments (name[, properties]), got 0")

# ---- data setters ----
ok("message:text", "")
ok("message:text", "Draft")
ok("message:text", "d" * 5000)
bad("message:text", ["d" * 5001], "message:text: text must be at most 5000 characters (got 5001)")
bad("message:text", [False], "message:text: text must be a string (got boolean)")
ok("user:email", "ana@example.com")
bad("user:email", ["ana@"], "user:email: email must be an email address")
bad("user:email", ["a" * 250 + "@b.co"], "user:email: email must be at most 254 characters (got 255)")
ok("user:email", "a" * 249 + "@b.co")
ok("user:name", "Ana Lima")
bad("user:name", [""], "user:name: name must not be empty")
bad("user:name", [None], "user:name: name must be a string (got null)")
ok("user:name", "n" * 255)
bad("user:name", ["n" * 256], "user:name: name must be at most 255 characters (got 256)")
ok("user:phone", "+1 (555) 010-9999")
ok("user:phone", "1" * 32)
bad("user:phone", ["1" * 33], "user:phone: phone must be at most 32 characters (got 33)")
bad("user:phone", ["12"], "user:phone: phone must be a phone number")
bad("user:phone", ["555+1234"], "user:phone: phone must be a phone number", note="+ only at the start")
for c in ["user:attributes", "conversation:attributes"]:
    ok(c, {"plan": "gold", "ref": ""})
    ok(c, {"k%d" % i: "v" for i in range(50)})
    bad(c, [{"k%d" % i: "v" for i in range(51)}], c + ": attributes must have at most 50 keys (got 51)")
    bad(c, [{}], c + ": attributes must have at least one key")
    bad(c, [{"vip": True}], c + ': attributes key "vip" must be a string (got boolean)')
    bad(c, [{"n": 3}], 'attributes key "n" must be a string (got number)', note="values are strings (spec: customAttributes)")
    ok(c, {"k" * 255: "v" * 1000})
    bad(c, [{"k" * 256: "v"}], c + ": attributes keys must be at most 255 characters (got 256)")
    bad(c, [{"k": "v" * 1001}], 'attributes key "k" must be at most 1000 characters (got 1001)')
    bad(c, [{" ": "v"}], c + ": attributes keys must not be empty")
    bad(c, [["plan", "gold"]], c + ": attributes must be an object (got array)")
for c, what in [("user:context", "context"), ("shop:data", "data")]:
    ok(c, {"page": "/products/tee", "nested": {"a": [1, 2.5, None, True]}})
    ok(c, sized({"n": 1}, 8192))
    bad(c, [sized({"n": 1}, 8193)], c + ": " + what + " must be at most 8192 bytes as JSON (got 8193)")
    bad(c, ["x"], c + ": " + what + " must be an object (got string)")
    bad(c, [], c + ": expects 1 argument (" + what + "), got 0")

# ---- commerce context ----
ok("product", {"id": "gid://shopify/Product/1", "title": "Tee", "price": 19.99, "currency": "EUR",
               "url": "https://shop.example/products/tee", "variantId": 7, "tags": ["summer"]})
ok("product", {"id": 1})
ok("product", None, note="null clears the product")
ok("product", sized({"id": 1}, 8192))
ok("product", sized({"id": 1, "title": "Café"}, 8192), note="bytes, not characters: é is 2")
ok("product", sized({"id": 1, "price": 3.0}, 8192), note="3.0 is written 3, as JSON.stringify does")
bad("product", [sized({"id": 1}, 8193)], "product: product must be at most 8192 bytes as JSON (got 8193)")
bad("product", [sized({"id": 1, "q": "a\"\n\u0001"}, 8193)], "must be at most 8192 bytes as JSON (got 8193)",
    note="escapes count as written")
bad("product", [{"title": "Tee"}], 'product: product must have "id"')
bad("product", [{"id": 1, "price": -1}], "product: product.price must be 0 or more")
bad("product", [{"id": 1, "price": "19.99"}], "product.price must be a number (got string)")
bad("product", [{"id": 1, "currency": "eur"}], "product: product.currency must be a three-letter ISO 4217 code")
bad("product", [{"id": 1, "currency": "EURO"}], "product.currency must be a three-letter ISO 4217 code")
bad("product", [{"id": 1, "title": ""}], "product.title must not be empty")
bad("product", [{"id": 1, "url": 5}], "product.url must be a string (got number)")
bad("product", [{"id": [1]}], "product.id must be a string or a number (got array)")
bad("product", ["tee"], "product: product must be an object (got string)")
bad("product", [], "product: expects 1 argument (product), got 0")
ok("cart", {"items": [{"productId": 1, "quantity": 2, "price": 10, "title": "Tee"}], "total": 20, "currency": "USD"})
ok("cart", {"items": []}, note="an empty cart")
ok("cart", None)
ok("cart", {"items": [{"productId": "p", "quantity": 3.0}]}, note="3.0 is a whole number")
bad("cart", [{}], 'cart: cart must have "items"')
bad("cart", [{"items": {}}], "cart: cart.items must be an array (got object)")
bad("cart", [{"items": ["p1"]}], "cart: cart.items[0] must be an object (got string)")
bad("cart", [{"items": [{"quantity": 1}]}], 'cart: cart.items[0] must have "productId"')
bad("cart", [{"items": [{"productId": 1}]}], 'cart.items[0] must have "quantity"')
bad("cart", [{"items": [{"productId": 1, "quantity": 1}, {"productId": 2, "quantity": 0}]}],
    "cart: cart.items[1].quantity must be a whole number of 1 or more")
bad("cart", [{"items": [{"productId": 1, "quantity": 1.5}]}], "cart.items[0].quantity must be a whole number of 1 or more")
bad("cart", [{"items": [{"productId": 1, "quantity": 1, "price": -2}]}], "cart.items[0].price must be 0 or more")
bad("cart", [{"items": [], "total": "20"}], "cart: cart.total must be a number (got string)")
ok("cart", sized({"items": []}, 8192))
bad("cart", [sized({"items": []}, 8193)], "cart: cart must be at most 8192 bytes as JSON (got 8193)")
ok("order", {"id": "#1001", "total": 59.5, "currency": "GBP", "status": "fulfilled"})
ok("order", None)
ok("order", sized({"id": 1001}, 8192))
bad("order", [sized({"id": 1001}, 8193)], "order: order must be at most 8192 bytes as JSON (got 8193)")
bad("order", [{"total": 5}], 'order: order must have "id"')
bad("order", [{"id": 1, "status": ""}], "order: order.status must not be empty")
bad("order", [{"id": 1, "total": -0.01}], "order.total must be 0 or more")
bad("order", [1001], "order: order must be an object (got number)")

# ---- locale ----
for tag in ["en", "pt-BR", "zh-Hant-TW", "es-419", "haw"]:
    ok("locale", tag)
ok("locale", "en-" + "-".join(["abcdefgh"] * 3) + "-abcde", note="35 characters")
bad("locale", ["en-" + "-".join(["abcdefgh"] * 3) + "-abcdef"], "locale: locale must be a language tag",
    note="36 characters")
for tag in ["e", "english", "en_US", "en-", "-en", "", "12"]:
    bad("locale", [tag], "locale: locale must be a language tag like")
bad("locale", [None], "locale: locale must be a string (got null)")
bad("locale", [], "locale: expects 1 argument (locale), got 0")

# ---- rate windows ----
def steps(command, args, n, verdict, warning=None):
    step = {"command": command, "args": args, "verdict": verdict, **({"warning": warning} if warning else {})}
    return [dict(step) for _ in range(n)]

sequences = [
    {"name": "15 messages in a window are accepted, the 16th is refused",
     "steps": steps("message:send", ["hi"], 15, "accept")
     + [{"command": "message:send", "args": ["hi"], "verdict": "reject",
         "warning": "message:send: rate limit of 15 messages per minute reached; try again in 60 s"}]},
    {"name": "the window is fixed from the first message; refused calls do not extend it",
     "steps": steps("message:send", ["hi"], 15, "accept")
     + [{"advanceMs": 59000, "command": "message:send", "args": ["hi"], "verdict": "reject",
         "warning": "try again in 1 s"},
        {"advanceMs": 999, "command": "message:send", "args": ["hi"], "verdict": "reject", "warning": "rate limit of 15"},
        {"advanceMs": 1, "command": "message:send", "args": ["hi"], "verdict": "accept"}]
     + steps("message:send", ["hi"], 14, "accept")
     + [{"command": "message:send", "args": ["hi"], "verdict": "reject", "warning": "rate limit of 15 messages"}]},
    {"name": "rejected shapes do not count",
     "steps": steps("message:send", [""], 20, "reject", "message:send: text must not be empty") + steps("message:send", ["ok"], 15, "accept")
     + [{"command": "message:send", "args": ["ok"], "verdict": "reject", "warning": "rate limit"}]},
    {"name": "30 typing calls in a window, the 31st refused, messages counted apart",
     "steps": steps("typing:set", [True], 30, "accept")
     + [{"command": "typing:set", "args": [False], "verdict": "reject",
         "warning": "typing:set: rate limit of 30 typing calls per minute reached"}]
     + [{"command": "message:send", "args": ["still fine"], "verdict": "accept"},
        {"command": "chat:open", "args": [], "verdict": "accept"},
        {"advanceMs": 60000, "command": "typing:set", "args": [True], "verdict": "accept"}]},
    {"name": "each session has its own windows",
     "steps": steps("message:send", ["a"], 15, "accept")
     + [{"command": "message:send", "args": ["a"], "verdict": "reject", "warning": "rate limit"},
        {"session": "other", "command": "message:send", "args": ["a"], "verdict": "accept"}]},
]

out = {
    "_comment": "Generated by make_sdk_commands.py; read by tests/sdk (C++) and the browser test. "
                "args are the positional arguments after the command name.",
    "version": "1.1.0",
    "vectors": vectors,
    "sequences": sequences,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdk_commands.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"{len(vectors)} vectors, {len(sequences)} sequences -> {path}")
