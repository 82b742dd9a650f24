"""How long the browser verifier (static/fair.js) takes over a whole 8-hand match, in Chromium.

Three records of the same size, checked in turn (interleaved, so a busy machine slows each
alike): no signed moves (the walls, dice, draws and the chain only), one person signing every
move of theirs with three bots (the centre's usual match), and four people signing every move
(the worst case: one ECDSA P-256 verification per move). Prints the median, min and max of
each, and the time of 500 bare WebCrypto ECDSA verifications for scale.

    PYTHONPATH=src:tests python3 benchmarks/bench_fair_browser.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
from typing import Any

from playwright.sync_api import sync_playwright

from test_fair_vectors import FAIR_JS, mixed_record, signed_record

BARE = """async () => {
  const kp = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, false, ['sign', 'verify']);
  const m = new Uint8Array(40), s = await crypto.subtle.sign({name: 'ECDSA', hash: 'SHA-256'}, kp.privateKey, m);
  const t0 = performance.now(), jobs = [];
  for (let i = 0; i < 500; i++) jobs.push(crypto.subtle.verify({name: 'ECDSA', hash: 'SHA-256'}, kp.publicKey, s, m));
  await Promise.all(jobs);
  return performance.now() - t0;
}"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    records: dict[str, dict[str, Any]] = {"unsigned": mixed_record(), "1 person signs": signed_record(people=1),
                                          "4 people sign": signed_record(people=4)}
    times: dict[str, list[float]] = {k: [] for k in records}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = b.new_page()
        page.route("https://caishen.test/**", lambda r: r.fulfill(body="<html></html>", content_type="text/html"))
        page.goto("https://caishen.test/bench.html")
        page.add_script_tag(content=FAIR_JS.read_text(encoding="utf-8"))
        for _ in range(args.runs):
            for name, rec in records.items():
                r = page.evaluate("(r) => FairCheck.verifyRecord(JSON.stringify(r))", rec)
                assert r["ok"], r["message"]
                times[name].append(r["ms"])
        bare = [page.evaluate(BARE) for _ in range(3)]
        b.close()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, {args.runs} interleaved runs")
    for name, ts in times.items():
        rec = records[name]
        signed = sum(1 for h in rec["hands"] for s in h.get("signatures", []) if len(s) == 128)
        print(f"{name:16} {len(rec['hands'])} hands, {signed:4} signatures: median {statistics.median(ts):6.1f} ms "
              f"(min {min(ts):.1f}, max {max(ts):.1f})")
    print(f"500 bare ECDSA P-256 verifications: median {statistics.median(bare):.1f} ms")


if __name__ == "__main__":
    main()
