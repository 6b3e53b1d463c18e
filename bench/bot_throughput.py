"""The bot's two figures: deliveries acknowledged per second (signature check + enqueue into SQLite,
over real HTTP to ``oracle-gate serve``), and delivery -> check posted for one pull request on a warm
mirror, with the parent's real map found in the trusted store (the map workflow's run and artifact on
the fake's Actions API; downloaded and verified by the first pull request, kept for the next). GitHub
is the loopback fake (its latency is not GitHub's), so the second figure is the bot's own time.
Targets (issue #12): ack < 50 ms at 100 deliveries/s; verdict within 2 s on a warm mirror.

    .venv/bin/python bench/bot_throughput.py [--deliveries 500] [--rate 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.harness import APP_ID, REPO, Bot, Origin, make_app_key, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.github_fake.server import FakeGitHub


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def ack_latencies(bot: Bot, payload: dict[str, object], count: int, rate: float) -> list[float]:
    """Deliver ``count`` signed deliveries at ``rate`` per second from 8 senders; each one's answer time."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = time.perf_counter()

    def sender(offset: int) -> None:
        for i in range(offset, count, 8):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            t0 = time.perf_counter()
            answer = bot.deliver("pull_request", payload, delivery=f"bench-{i}")
            took = time.perf_counter() - t0
            assert answer.status_code == 202, answer.text
            with lock:
                latencies.append(took)

    threads = [threading.Thread(target=sender, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def verdict_time(bot: Bot, fake: FakeGitHub, origin: Origin, number: int) -> float:
    head = origin.pull(number, f"bench {number}")
    fake.add_pull(REPO, number, head_sha=head, base_sha=origin.main)
    t0 = time.perf_counter()
    bot.deliver("pull_request", pull_request_event("opened", number, head, origin.main))
    while not any(r.head_sha == head for r in fake.check_runs(REPO)):
        time.sleep(0.005)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deliveries", type=int, default=500)
    parser.add_argument("--rate", type=float, default=100.0)
    args = parser.parse_args()
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
        try:
            cold = verdict_time(bot, fake, origin, 1)
            warm = [verdict_time(bot, fake, origin, n) for n in range(2, 12)]
            # Acknowledgement: a delivery for a pull request the fake does not know (judged as 404s
            # later; only the answer time counts here).
            payload = pull_request_event("opened", 9999, "f" * 40, origin.main)
            lat = ack_latencies(bot, payload, args.deliveries, args.rate)
            conclusions = sorted({r.conclusion or "" for r in fake.check_runs(REPO)})
        finally:
            bot.stop()
    ms = [x * 1000 for x in lat]
    print(
        f"ack: {len(ms)} deliveries at {args.rate:.0f}/s: median {statistics.median(ms):.1f} ms, "
        f"p95 {percentile(ms, 0.95):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms "
        f"(target < 50 ms)"
    )
    print(
        f"verdict: cold mirror {cold:.2f} s; warm mirror median {statistics.median(warm):.2f} s, "
        f"max {max(warm):.2f} s over {len(warm)} pull requests (target < 2 s); "
        f"check conclusions {conclusions} (success: the stored map was used)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
