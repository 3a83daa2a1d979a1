#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ from the requests the
suites send and the shared SDK vectors (tests/vectors/sdk_commands.json).
Run from anywhere; it rewrites the seed-* files and keeps any other file
(inputs a fuzzing run found and that were added on purpose).
Input formats: tests/fuzz/fuzz_http.h and each target's header comment."""
import hashlib
import json
import pathlib

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent


def http(method, target, body="", headers=()):
    head = "".join(f"{k}: {v}\n" for k, v in headers)
    return f"{method} {target}\n{head}\n{body}"


CONV = "/chat/conversations/$CONV"
rest = [
    http("GET", "/chat/conversations?limit=5"),
    http("GET", "/chat/conversations?limit=20&status=open&isRead=false&tag=vip&channel=online_store"),
    http("GET", "/chat/conversations?q=parcel%20dam&sort=relevance"),
    http("GET", "/chat/conversations?q=hello&sort=lastActive&after=YzE6MTcwMDAwMDAwMDAwMDox"),
    http("GET", CONV),
    http("GET", CONV + "/messages?limit=3&order=desc"),
    http("POST", CONV + "/messages", '{"text":"Your parcel ships today","senderName":"Ada"}'),
    http("POST", CONV + "/messages", '{"text":"again"}', [("Idempotency-Key", "retry-1")]),
    http("POST", CONV + "/state", '{"status":"resolved"}'),
    http("POST", CONV + "/assign", '{"memberId":null}'),
    http("POST", CONV + "/read", ''),
    http("POST", CONV + "/typing", '{"isTyping":true}'),
    http("POST", CONV + "/tags", '{"tags":["vip","returns"]}'),
    http("GET", CONV + "/notes"),
    http("POST", CONV + "/notes", '{"text":"called back"}'),
    http("POST", CONV + "/attributes", '{"name":"order","value":"#1042"}'),
    http("GET", CONV + "/related"),
    http("GET", CONV + "/browsed-pages"),
    http("GET", CONV + "/summary"),
    http("GET", "/chat/customers/$CUST"),
    http("GET", "/chat/customers/$CUST/conversations"),
    http("GET", "/chat/customers?limit=2&after=x"),
    http("GET", "/chat/members"),
    http("GET", "/chat/tags"),
    http("GET", "/chat/events?limit=2&types=message.created,conversation.created"),
    http("GET", "/chat/webhooks"),
    http("POST", "/chat/webhooks", '{"url":"https://hooks.example.com/lc","events":["message.created"],"signatureFormat":"standard"}'),
    http("POST", "/api/auth/login", '{"email":"agent@example.com","password":"correct horse battery"}'),
    http("GET", "/chat/conversations", "", [("X-Api-Key", "sk_wrong")]),
]
storefront = [
    http("POST", "/storefront/sessions", ""),
    http("GET", "/storefront/session"),
    http("POST", "/storefront/commands", '{"command":"message:send","args":["hi there"]}'),
    http("POST", "/storefront/commands", '{"command":"user:context","args":[{"email":"a@example.com","name":"Ann"}]}'),
    http("POST", "/storefront/pageviews", '{"url":"https://shop.example/products/jacket","title":"Jacket"}'),
    http("GET", "/storefront/updates?afterSeq=0&wait=0"),
    http("OPTIONS", "/storefront/commands", "", [("Origin", "https://shop.example")]),
]
mcp = [
    http("POST", "/mcp", '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}'),
    http("POST", "/mcp", '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
    http("POST", "/mcp", '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"product_lookup","arguments":{"query":"jacket"}}}'),
    http("POST", "/mcp", '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"faq_retrieval","arguments":{"query":"returns"}}}'),
    http("POST", "/mcp", '[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]'),
    http("GET", "/mcp"),
    http("DELETE", "/mcp", "", [("Mcp-Session-Id", "nope")]),
]
platform = [
    "\x01" + http("POST", "/platform/customers-data-request", '{"shop_id":"$SHOP","shop_domain":"main.example","customer":{"id":191167,"email":"shopper@example.com"}}'),
    "\x01" + http("POST", "/platform/customers-redact", '{"shop_id":"$SHOP","customer":{"email":"shopper@example.com"}}'),
    "\x00" + http("POST", "/platform/shop-redact", '{"shop_id":"$SHOP","shop_domain":"main.example"}', [("X-Platform-Hmac-Sha256", "AAAA")]),
    "\x01" + http("POST", "/platform/app-uninstalled", '{"shop_id":"$SHOP"}', [("X-Platform-Webhook-Id", "d-1")]),
]
uploads = [
    "\x00contacts.csv\ntext/csv\nemail,name,phone,tags\nann@example.com,Ann,+1 555 0100,\"vip, returns\"\nbob@example.com,\"Bob \"\"B\"\"\",,\n",
    "\x01logo.png\nimage/png\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00",
    "\x02../../avatar.jpg\nimage/jpeg\n\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "\x04report.pdf\napplication/pdf\n%PDF-1.4\n%\xe2\xe3\xcf\xd3\n",
]
legacy = [
    json.dumps({"conversations": [{"id": "abcdefghij0123456789", "customer": {"email": "old@example.com", "name": "Old"},
                                   "createdAt": "2024-01-02T03:04:05.000Z", "tags": ["legacy"],
                                   "messages": [{"text": "hi", "senderType": "customer", "createdAt": "2024-01-02T03:04:05.000Z"}]}]}),
    "{}",
    "[]",
]
cursors = ["YzE6MTcwMDAwMDAwMDAwMDox", "bTE6NQ", "ZTE6MTI", "cjE6MC41OjE3MDAwMDAwMDAwMDA6Mw", "", "====", "e1:5"]
urls = ["https://hooks.example.com/lc?x=1", "https://[2001:db8::1]:8443/p#10.0.0.1", "https://169.254.169.254/latest",
        "https://user:pw@example.com/", "http://example.com/", "https://example.com:0/", "https://0x7f.1/#127.0.0.1",
        "https://example.com/#::ffff:10.0.0.1"]

sdk = []
vectors = json.loads((root / "tests/vectors/sdk_commands.json").read_text())["vectors"]
for v in vectors:
    sdk.append(v["command"] + "\n" + json.dumps(v["args"], ensure_ascii=False))

corpora = {"fuzz_rest": rest, "fuzz_storefront": storefront, "fuzz_mcp": mcp, "fuzz_platform": platform,
           "fuzz_uploads": uploads, "fuzz_legacy_import": legacy, "fuzz_cursors": cursors,
           "fuzz_webhook_url": urls, "fuzz_sdk_command": sdk}
for name, seeds in corpora.items():
    d = here / "corpus" / name
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("seed-*"):
        old.unlink()
    for s in seeds:
        # Upload seeds are bytes written as latin-1 text (file magic); the
        # others are UTF-8 text.
        data = s.encode("latin-1" if name == "fuzz_uploads" else "utf-8")
        (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)
    print(f"{name}: {len(seeds)} seeds")
