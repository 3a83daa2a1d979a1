#!/usr/bin/env python3
"""Writes a synthetic catalog in the import format (docs/mcp.md): N products
with 2-4 variants each and M knowledge (FAQ) entries, from a fixed seed, so
every run searches the same data. Usage: mcp_catalog.py PRODUCTS FAQS > F.json"""
import json
import random
import sys

rng = random.Random(20261121)
adjectives = ["classic", "lightweight", "insulated", "waterproof", "organic", "recycled", "stretch", "packable",
              "breathable", "heavyweight", "relaxed", "slim", "cropped", "oversized", "vintage", "technical"]
materials = ["merino", "cotton", "linen", "down", "fleece", "denim", "leather", "canvas", "cashmere", "nylon",
             "hemp", "silk", "wool", "corduroy", "suede", "bamboo"]
kinds = ["sweater", "jacket", "shirt", "trousers", "shorts", "beanie", "scarf", "socks", "boots", "sneakers",
         "vest", "hoodie", "dress", "skirt", "tote", "backpack", "gloves", "parka", "cardigan", "blazer"]
colors = ["navy", "black", "oatmeal", "olive", "rust", "charcoal", "sand", "forest", "sky", "burgundy"]
topics = ["shipping", "returns", "refund", "exchange", "sizing", "care", "warranty", "payment", "gift card",
          "order change", "tracking", "international delivery", "discount code", "loyalty points", "repairs",
          "stock", "pre-order", "store pickup", "invoice", "account"]
verbs = ["change", "track", "cancel", "return", "exchange", "wash", "repair", "pay for", "find", "use"]
filler = ("designed for everyday wear with a comfortable fit and durable construction that lasts season after "
          "season while staying easy to care for at home").split()


def sentence(words):
    return " ".join(rng.choice(words) for _ in range(rng.randint(8, 16))).capitalize() + "."


def main():
    n_products, n_faqs = int(sys.argv[1]), int(sys.argv[2])
    products = []
    for i in range(n_products):
        adj, mat, kind = rng.choice(adjectives), rng.choice(materials), rng.choice(kinds)
        price = f"{rng.randint(15, 400)}.{rng.choice(['00', '50', '95', '99'])}"
        variants = [{"id": f"v{i}_{j}", "title": f"{size} / {rng.choice(colors)}", "sku": f"SKU-{i}-{j}",
                     "price": price, "inventory": rng.randint(0, 40)}
                    for j, size in enumerate(rng.sample(["XS", "S", "M", "L", "XL"], rng.randint(2, 4)))]
        products.append({
            "id": f"p{i}", "handle": f"{adj}-{mat}-{kind}-{i}", "title": f"{adj.title()} {mat.title()} {kind.title()} {i}",
            "description": f"A {adj} {kind} in {mat}. " + sentence(filler + [mat, kind, adj]),
            "vendor": "Bench", "productType": kind.title(), "tags": [mat, kind, adj], "currency": "USD",
            "variants": variants,
        })
    knowledge = []
    for i in range(n_faqs):
        topic, verb = rng.choice(topics), rng.choice(verbs)
        knowledge.append({"id": f"kb{i}", "question": f"How do I {verb} my {topic} ({i})?",
                          "answer": f"About {topic}: " + sentence(filler + topic.split() + [verb])})
    json.dump({"products": products, "knowledge": knowledge}, sys.stdout)


main()
