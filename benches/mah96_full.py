"""Benchmark (not a test): Mah's INSANE internetwork at the thesis' scale, one run per configuration.

Runs `scenarios/mah96/noqos_conv_svc.toml` (6 sites x (200 workstations + 2 servers), 4000
simulated seconds) through the core's `run` example, single-threaded, for the configurations
given (default: conv-svc and conv-svccache), and prints wall time, events, cell-hops and the
child's peak resident memory, with the ratio to INSANE's 4 hours per run on a 167 MHz
UltraSPARC (Mah 1996 §3.6.5). Usage:

    cargo build --release -p atmsim-core --example run
    python3 benches/mah96_full.py [--duration-s 4000] [--seed 1] [conv-svc app-svccache ...]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "mah96" / "noqos_conv_svc.toml"
RUN = ROOT / "target" / "release" / "examples" / "run"
INSANE_WALL_S = 4 * 3600.0  # one 4000 s run on a Sun Ultra 1 (Mah §3.6.5)


def variant(mux: str, vc: str, duration_s: float, seed: int) -> str:
    text = SCENARIO.read_text()
    text = text.replace('ipoa = { mux = "conv", vc = "svc" }', f'ipoa = {{ mux = "{mux}", vc = "{vc}" }}')
    text = text.replace("duration_s = 4000.0", f"duration_s = {duration_s}")
    return text.replace("seed = 1\n", f"seed = {seed}\n", 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", default=["conv-svc", "conv-svccache"])
    ap.add_argument("--duration-s", type=float, default=4000.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not RUN.exists():
        raise SystemExit(f"{RUN} not found: cargo build --release -p atmsim-core --example run")
    print(f"{'config':<18} {'wall s':>8} {'events':>12} {'cell-hops':>12} {'Mev/s':>6} {'peak RSS MiB':>12} {'vs INSANE':>9}")
    for cfg in args.configs:
        mux, vc = cfg.split("-")
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(variant(mux, vc, args.duration_s, args.seed))
        t0 = time.perf_counter()
        out = subprocess.run([str(RUN), f.name], check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - t0
        Path(f.name).unlink()
        rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # max over children so far
        r = json.loads(out)["run"]
        ratio = INSANE_WALL_S * args.duration_s / 4000.0 / wall
        print(
            f"{cfg:<18} {wall:8.1f} {r['events']:12,d} {r['cell_hops']:12,d} "
            f"{r['events'] / r['wall_s'] / 1e6:6.2f} {rss_mib:12.1f} {ratio:8.0f}x"
        )


if __name__ == "__main__":
    main()
