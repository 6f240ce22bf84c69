"""What admission capacity per T1 port would give Mah's nwc-http failure rates: a workload-only model.

Not the simulator. It plays Mah's browsers (data/mah96_http: files per page fetched one after
another, consecutive documents per server, think times; Zipf over the six Web servers, rank 1
to 3 in the West; 200 browsers per site placed 5 s apart on average; 4000 s), gives every
remote HTTP connection an HTTP-down and an HTTP-up VC (conv: one per connection; app: one per
client-server host pair), holds them as the driver does (svc: torn down 10 s after the last
use; svccache: unbound after 10 s, cached 300 s, reused for the same ingress, egress and
type, keeping its reservation while cached, §6.6 fn 2), and admits each guaranteed setup
against a budget at every port on its path (the sending site's uplink, the HW-HE trunk if it
crosses, the receiving site's downlink; a router's adapter carries the same VCs as its
switch's uplink). A refused setup falls back to a best-effort VC, reused only by later
fallbacks (A-36). Transfers take 0.3 s plus 8 ms per reply cell on a guaranteed VC (Tab 4-5's
X_ave) and a quarter of that on best effort; no queueing, no losses, no other application.

At 14 HTTP-down VCs per port (the shipped test) it gives failure rates of 43 / 99 / 20 / 81 %
(conv-svc, conv-svccache, app-svc, app-svccache) where the simulator measured 43 / 99 / 23 /
95 % at the thesis' scale, so it is used to ask what other capacities would give.
Run: python3 tools/mah96_admission_model.py  (about a minute).  See docs/mah96.md,
"Admission: which reading of the delay-bound test".
"""

import bisect
import csv
import heapq
import math
import random
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "mah96_http"
IDLE_S, CACHE_S, DURATION_S, PER_SITE = 10.0, 300.0, 4000.0, 200
ZIPF = [1 / k for k in range(1, 7)]  # site index = Web server rank - 1; sites 0-2 in the West
TAU_MS = 424 / 1536  # T1 cell time [ms]


def _table(name):
    rows = list(csv.DictReader(open(DATA / f"{name}.csv")))
    values, cum, c = [float(r["value"]) for r in rows], [], 0
    for r in rows:
        c += int(r["count"])
        cum.append(c)
    return values, cum


TABLES = {k: _table(k) for k in ("think_time_s", "files_per_page", "consecutive_docs", "reply_bytes")}


def draw(name, rng):
    values, cum = TABLES[name]
    return values[min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(values) - 1)]


def path(src, dst):
    """The distinct port sets a VC from site src to site dst passes, the sender's first."""
    trunk = [("trunk", src < 3)] if (src < 3) != (dst < 3) else []
    return [("up", src)] + trunk + [("down", dst)]


def run(mux, vc, cost_down, cost_up, budget, seed=1, be_speedup=4.0, samples=None, first_hop_only=False):
    """Guaranteed failure rate per setup request, cache hit rate, and failure rate per
    guaranteed VC request (hits + setups) of HTTP VCs under one admission budget;
    `samples`, if a list, gets the busiest port's reserved total once a second from 1500 s
    (all browsers placed). `first_hop_only`: only the sending site's uplink tests."""
    rng = random.Random(seed)
    used, pools, vcs, bound, events, seq = {}, {}, {}, {}, [], [0]
    st = dict(requested=0, refused=0, hits=0, setups=0, guaranteed_hits=0)

    def push(t, *a):
        seq[0] += 1
        heapq.heappush(events, (t, seq[0]) + a)

    def vc_for(key, cls, ports, cost):
        if key in bound:  # app: the pair's VC is still bound
            return bound[key]
        if vc == "svccache" and pools.get(cls):
            v = pools[cls].pop()
            st["hits"] += 1
            st["guaranteed_hits"] += 1
        else:
            st["requested"] += 1
            st["setups"] += 1
            if all(used.get(p, 0) + cost <= budget + 1e-9 for p in ports):
                for p in ports:
                    used[p] = used.get(p, 0) + cost
                v = len(vcs) + 1
                vcs[v] = dict(cls=cls, ports=ports, cost=cost, busy=0, last=0.0)
            else:
                st["refused"] += 1
                fb = ("fallback",) + cls
                if vc == "svccache" and pools.get(fb):
                    v = pools[fb].pop()
                    st["hits"] += 1
                else:
                    st["setups"] += 1
                    v = len(vcs) + 1
                    vcs[v] = dict(cls=fb, ports=ports, cost=0, busy=0, last=0.0)
        if mux == "app":
            bound[key] = v
        return v

    def release(v):
        for p in vcs[v]["ports"]:
            used[p] -= vcs[v]["cost"]
        vcs[v]["ports"] = []

    for site in range(6):
        t = 0.0
        for b in range(PER_SITE):
            t += rng.expovariate(1 / 5.0)
            push(t, "page", (site, b), 0, None)
    n = 0
    while events:
        t, _, kind, *a = heapq.heappop(events)
        if t > DURATION_S:
            break
        while samples is not None and 1500 + len(samples) <= t:
            samples.append(max(used.values(), default=0))
        if kind == "page":
            who, docs, srv = a
            if docs == 0:
                srv = rng.choices(range(6), ZIPF)[0]
                docs = math.ceil(draw("consecutive_docs", rng))
            push(t, "file", who, docs, srv, math.ceil(draw("files_per_page", rng)))
        elif kind == "file":
            who, docs, srv, files = a
            cells = math.ceil(max(1.0, draw("reply_bytes", rng)) / 512) * 12  # MSS 512, 12 cells
            if srv == who[0]:  # same site: on the LAN, no VC
                push(t + 0.05 + cells * 1e-4, "done", who, docs, srv, files, None, None)
                continue
            n += 1
            key_d, key_u = (("conv", n, "d"), ("conv", n, "u")) if mux == "conv" else ((srv, who, "d"), (who, srv, "u"))
            cls_d = (srv, who[0] if mux == "conv" else who, "down")
            cls_u = (who[0] if mux == "conv" else who, srv, "up")
            hops = 1 if first_hop_only else 3
            vd = vc_for(key_d, cls_d, path(srv, who[0])[:hops], cost_down)
            vu = vc_for(key_u, cls_u, path(who[0], srv)[:hops], cost_up)
            vcs[vd]["busy"] += 1
            vcs[vu]["busy"] += 1
            per_cell = 0.008 if vcs[vd]["cost"] else 0.008 / be_speedup
            push(t + 0.3 + cells * per_cell, "done", who, docs, srv, files, vd, vu)
        elif kind == "done":
            who, docs, srv, files, vd, vu = a
            for v in (vd, vu):
                if v is not None:
                    vcs[v]["busy"] -= 1
                    vcs[v]["last"] = t
                    if vcs[v]["busy"] == 0:
                        push(t + IDLE_S, "idle", v, t)
            if files > 1:
                push(t, "file", who, docs, srv, files - 1)
            else:
                push(t + max(1.0, draw("think_time_s", rng)), "page", who, docs - 1, srv)
        elif kind == "idle":
            v, at = a
            x = vcs[v]
            if x["busy"] or x["last"] != at or x.get("gone"):
                continue
            for k in [k for k, b in bound.items() if b == v]:
                del bound[k]
            if vc == "svc":
                release(v)
                x["gone"] = True
            else:
                pools.setdefault(x["cls"], []).append(v)
                push(t + CACHE_S, "expire", v, at)
        elif kind == "expire":
            v, at = a
            x = vcs[v]
            if x["last"] == at and v in pools.get(x["cls"], []):
                pools[x["cls"]].remove(v)
                release(v)
                x["gone"] = True
    per_vc_request = st["refused"] / max(1, st["requested"] + st["guaranteed_hits"])
    return st["refused"] / max(1, st["requested"]), st["hits"] / max(1, st["hits"] + st["setups"]), per_vc_request


# (reading, HTTP-down VCs per T1 port, cost of an HTTP-down VC, of an HTTP-up VC, budget)
READINGS = [
    ("shipped test (9 cells of 127)", 14, 9, 1, 127),
    ("shipped test, first hop only", 14, 9, 1, 127),
    ("payload bytes", 15, 9, 1, 6736 / 48),
    ("peak kb/s", 16, 96, 7.68, 1536),
    ("rate test alone, cells", 28, TAU_MS / 8, TAU_MS / 100, 1.0),
    ("average kb/s", 32, 48, 3.84, 1536),
    ("larger budgets, up = 1/9 down", 56, 1, 1 / 9, 56),
    ("larger budgets, up = 1/9 down", 100, 1, 1 / 9, 100),
    ("larger budgets, up = 1/9 down", 250, 1, 1 / 9, 250),
]

if __name__ == "__main__":
    setups = [("conv", "svc"), ("conv", "svccache"), ("app", "svc"), ("app", "svccache")]
    for m, v in setups:
        held = []
        run(m, v, 1, 0, math.inf, samples=held)
        print(f"{m}-{v}: HTTP-down VCs held at the busiest port without admission:", end=" ")
        print(f"mean {sum(held) / len(held):.0f}, max {max(held)}")
    print("HTTP VCs, failure per setup / hit rate (per VC request):", ", ".join(f"{m}-{v}" for m, v in setups))
    for name, n, cd, cu, budget in READINGS:
        cols = [run(m, v, cd, cu, budget, first_hop_only="first hop" in name) for m, v in setups]
        row = "".join(f"  {100 * f:5.1f} / {100 * h:4.1f} ({100 * r:4.1f})" for f, h, r in cols)
        print(f"{n:4d}  {name:30s}{row}", flush=True)
