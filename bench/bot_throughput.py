"""The bot's figures (issue #17), over real HTTP to ``oracle-gate serve`` with the loopback fake GitHub
(its latency is not GitHub's, so the times are the bot's own):

* **burst**: delivery -> check posted for 10 pull requests opened at once on a warm mirror (the
  parent's real map found in the trusted store, downloaded by the cold first pull request); target
  p99 < 2 s;
* **acknowledgement**: answer time of signed deliveries at 100/s for 10 s while the workers judge
  what they queue (they cycle over 20 real pull requests), sent from a process of their own; target
  p99 < 50 ms. Measured twice: first as GitHub sends (a connection per delivery, each sent on time
  whatever the others do, pre-signed, from one asyncio loop: :mod:`bench.ack_raw` says why), then
  with the first figure's 8 ``requests`` senders, kept for comparison with earlier runs;
* **load average** before and after (the machine is shared: a figure means little without it);
* **peak RSS**: of the server and its child processes together, sampled every 20 ms, and the server's
  own high-water mark (VmHWM).

    .venv/bin/python bench/bot_throughput.py [--rate 100] [--seconds 10] [--burst 10]

Every loop is bounded (deliveries by count, waits by deadlines); loopback only.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ack_raw import ack_latencies_raw  # beside this file (the script's folder is on sys.path)

from tests.bot.harness import APP_ID, REPO, Bot, Origin, make_app_key, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.github_fake.server import FakeGitHub

SENDERS = 8
CYCLED_PULLS = 20


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def ack_latencies(url: str, payloads: list[dict[str, object]], count: int, rate: float) -> list[float]:
    """Deliver ``count`` signed deliveries at ``rate`` per second from 8 senders; each one's answer time.

    Runs in a process of its own (:func:`measure_acks`): in the bench's process the fake GitHub's
    request validation would hold the GIL and the senders' clocks would count that as the bot's time."""
    import requests

    from oracle_gate.bot.web.signature import sign
    from tests.bot.harness import SECRET

    bodies = [json.dumps(p).encode() for p in payloads]
    latencies: list[float] = []
    lock = threading.Lock()
    start = time.perf_counter()

    def sender(offset: int) -> None:
        session = requests.Session()
        for i in range(offset, count, SENDERS):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            body = bodies[i % len(bodies)]
            headers = {
                "X-GitHub-Event": "pull_request",
                "X-GitHub-Delivery": f"bench-{i}",
                "Content-Type": "application/json",
                "X-Hub-Signature-256": sign(SECRET, body),
            }
            t0 = time.perf_counter()
            answer = session.post(f"{url}/webhook", data=body, headers=headers, timeout=30)
            took = time.perf_counter() - t0
            assert answer.status_code == 202, answer.text
            with lock:
                latencies.append(took)

    threads = [threading.Thread(target=sender, args=(k,)) for k in range(SENDERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def measure_acks(
    bot: Bot, payloads: list[dict[str, object]], count: int, rate: float, raw: bool = False
) -> list[float]:
    context = multiprocessing.get_context("spawn")
    sender = ack_latencies_raw if raw else ack_latencies
    with ProcessPoolExecutor(1, mp_context=context) as senders:
        return senders.submit(sender, bot.url, payloads, count, rate).result(timeout=count / rate + 120)


def ack_line(what: str, latencies: list[float], rate: float) -> str:
    ms = [x * 1000 for x in latencies]
    return (
        f"ack while judging ({what}): {len(ms)} deliveries at {rate:.0f}/s: "
        f"p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms "
        "(target p99 < 50 ms)"
    )


def open_pull(fake: FakeGitHub, origin: Origin, number: int) -> str:
    head = origin.pull(number, f"bench {number}")
    fake.add_pull(REPO, number, head_sha=head, base_sha=origin.main)
    return head


def wait_for_checks(
    fake: FakeGitHub, heads: dict[int, str], since: float, timeout: float = 120
) -> dict[int, float]:
    """Seconds from ``since`` until each head has a check run (polled every 5 ms, up to ``timeout``)."""
    took: dict[int, float] = {}
    deadline = since + timeout
    while len(took) < len(heads) and time.perf_counter() < deadline:
        posted = {r.head_sha for r in fake.check_runs(REPO)}
        now = time.perf_counter()
        for number, head in heads.items():
            if number not in took and head in posted:
                took[number] = now - since
        time.sleep(0.005)
    if len(took) < len(heads):
        raise SystemExit(f"only {len(took)} of {len(heads)} checks posted within {timeout:.0f} s")
    return took


def burst(bot: Bot, fake: FakeGitHub, origin: Origin, numbers: range) -> list[float]:
    heads = {n: open_pull(fake, origin, n) for n in numbers}
    payloads = {n: pull_request_event("opened", n, heads[n], origin.main) for n in numbers}
    t0 = time.perf_counter()
    senders = [threading.Thread(target=bot.deliver, args=("pull_request", payloads[n])) for n in numbers]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    return list(wait_for_checks(fake, heads, t0).values())


class RssSampler:
    """Peak resident memory of a process and its descendants together (Linux /proc), sampled."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak_kib = max(self.peak_kib, sum(_rss_kib(p) for p in _tree(self.pid)))

    def hwm_kib(self) -> int:
        return _status_kib(self.pid, "VmHWM")


def _tree(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [root], [root]
    while frontier:
        children = [p for p, pp in parents.items() if pp in frontier]
        found += children
        frontier = children
    return found


def _status_kib(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _rss_kib(pid: int) -> int:
    return _status_kib(pid, "VmRSS")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--burst", type=int, default=10)
    args = parser.parse_args()
    load_before = tuple(round(x, 2) for x in os.getloadavg())
    key = make_app_key()
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        root = Path(tmp)
        fake.add_app(APP_ID, key.public_pem)
        fake.add_repo(REPO)
        origin = Origin(root / "origin")
        run = fake.add_workflow_run(REPO, WORKFLOW, origin.main)
        fake.add_artifact(run, ARTIFACT, map_artifact(REPO, origin.main, run.id))
        key_file = root / "app.pem"
        key_file.write_text(key.private_pem)
        bot = Bot(root / "state", fake, key_file, origin, concurrency=4).start()
        assert bot.proc is not None
        try:
            with RssSampler(bot.proc.pid) as rss:
                (cold,) = burst(bot, fake, origin, range(1, 2))  # map downloaded, mirror created
                warm = burst(bot, fake, origin, range(2, 2 + args.burst))
                cycled = range(100, 100 + CYCLED_PULLS)
                payloads = [
                    pull_request_event("opened", n, open_pull(fake, origin, n), origin.main) for n in cycled
                ]
                count = int(args.rate * args.seconds)
                raw = measure_acks(bot, payloads, count, args.rate, raw=True)
                lat = measure_acks(bot, payloads, count, args.rate)
                bot.wait_idle(timeout=300)
                hwm = rss.hwm_kib()
            conclusions = sorted({r.conclusion or "" for r in fake.check_runs(REPO)})
        finally:
            bot.stop()
    print(ack_line("a connection per delivery, sent on time, pre-signed", raw, args.rate))
    print(ack_line("8 requests senders, as before", lat, args.rate))
    print(
        f"delivery -> check: cold {cold:.2f} s; {len(warm)} pull requests opened at once on a warm mirror: "
        f"p50 {statistics.median(warm):.2f} s, p99 {percentile(warm, 0.99):.2f} s (target < 2 s); "
        f"conclusions {conclusions}"
    )
    load_after = tuple(round(x, 2) for x in os.getloadavg())
    print(
        f"load average (1, 5, 15 min): before {load_before}, after {tuple(round(x, 2) for x in load_after)}"
    )
    print(
        f"peak RSS: server + children {rss.peak_kib / 1024:.0f} MiB (sampled); "
        f"server VmHWM {hwm / 1024:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
