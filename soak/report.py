"""The soak's summary: the figures of a run (recovery per fault kind, lateness of the timers, the counts of the
checks), its timeline (``--keep``), and the human report or the JSON printed at the end."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from kit.progress import write_json
from soak.bots import Bot
from soak.checks import Findings
from soak.record import Record
from soak.seating import BANKS
from soak.timing import SLACK_S, SWEEP_GRACE_S, SWEEP_INTERVAL_S


def summarise(
    args: argparse.Namespace, record: Record, bots: list[Bot], findings: Findings, *, hands_closed: int,
    behind_proxy: bool,
) -> dict[str, Any]:  # fmt: skip
    """The run's summary (``--json`` prints it as it is): its figures, every check and every violation."""
    request_counts = findings.requests
    lateness = sorted(record.timer_lateness)
    return {
        "ok": not record.violations,
        "seconds": args.seconds,
        "seed": args.seed,
        "bots": len(bots),
        "behind_proxy": behind_proxy,
        "tables": len(args.presets) * len(BANKS),
        "presets": list(args.presets),
        "hands_closed": hands_closed,
        "actions_accepted": request_counts.get("accepted", 0) - len(bots),
        "requests_refused": request_counts.get("refused", 0),
        "post_requests": request_counts.get("requests", 0),
        "requests_retried": request_counts.get("retried", 0),
        "retries": sum(b.client.retries for b in bots),
        "dropped_attempts": request_counts.get("dropped_attempts", 0),
        "deliberate_repeats": sum(b.repeats for b in bots),
        "long_polls": dict(sum((b.waits for b in bots), Counter())),
        "replayed_answers": request_counts.get("replayed_answers", 0),
        "faults": len(record.faults),
        "faults_by_kind": dict(sorted(Counter(f.kind for f in record.faults).items())),
        "recovery": recovery_figures(record),
        "exited_by_themselves": [
            {"process": name, "reason": reason, "back_after_s": round(back, 2)} for name, reason, back in record.exits
        ],
        "timeouts_fired_after_deadline_s": {
            "count": len(lateness),
            "median": round(statistics.median(lateness), 2) if lateness else 0.0,
            "p99": round(lateness[int(len(lateness) * 0.99)], 2) if lateness else 0.0,
            "max": round(lateness[-1], 2) if lateness else 0.0,
        },
        "http": findings.http,
        "redis_keys": findings.redis_keys,
        "checks": findings.checks,
        "violations": record.violations,
    }


def write_timeline(record: Record, path: Path) -> None:
    """The faults, the outage windows, the health samples and the server errors, in seconds from the start (for
    whoever investigates a failure: ``--keep``)."""
    t0 = record.started
    timeline = {
        "faults": [{**f.__dict__, "at": f.at - t0, "back": f.back - t0} for f in record.faults],
        "windows": [
            {k: (v - t0 if isinstance(v, float) else v) for k, v in w.__dict__.items()} for w in record.windows
        ],
        "health": [(h.sent - t0, h.received - t0, h.status, h.error) for h in record.health],
        "server_errors": [(where, a.sent - t0, a.status, a.retry_after) for where, a in record.server_errors],
    }
    path.write_text(json.dumps(timeline, indent=1, default=str))


def recovery_figures(record: Record) -> dict[str, dict[str, float]]:
    """Per kind: how many, how long down, then ready, then until an action sent afterwards was accepted."""
    accepted = sorted(
        (r.attempts[0].sent, r.answer.received)  # type: ignore[union-attr]
        for r in record.requests
        if r.path.endswith("/actions") and r.answer is not None and r.answer.status == 200
    )
    for fault in record.faults:
        after = [received for sent, received in accepted if sent >= fault.back]
        fault.action_s = min(after) - fault.back if after else None
    dropped = [
        r.answer.received - next(a.sent for a in r.attempts if a.error == "dropped")  # type: ignore[union-attr]
        for r in record.requests
        if r.answer is not None and any(a.error == "dropped" for a in r.attempts)
    ]

    def stats(values: list[float]) -> tuple[float, float]:
        return (round(statistics.median(values), 2), round(max(values), 2)) if values else (0.0, 0.0)

    figures: dict[str, dict[str, float]] = {}
    for kind in sorted({f.kind for f in record.faults}):
        faults = [f for f in record.faults if f.kind == kind]
        down = stats([f.down_s for f in faults if f.down_s])
        ready = stats([f.ready_s for f in faults if f.ready_s is not None])
        action = stats([f.action_s for f in faults if f.action_s is not None])
        figures[kind] = {
            "count": len(faults),
            "down_median_s": down[0],
            "ready_median_s": ready[0],
            "ready_max_s": ready[1],
            "action_median_s": action[0],
            "action_max_s": action[1],
        }
        if kind == "client_drop":
            answered = stats(dropped)
            figures[kind].update(
                {"dropped_requests": len(dropped), "answered_median_s": answered[0], "answered_max_s": answered[1]}
            )
    return figures


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"soak {'PASSED' if summary['ok'] else 'FAILED'}: {summary['seconds']:.0f} s, seed {summary['seed']}, "
        f"{summary['bots']} bots at {summary['tables']} tables ({len(summary['presets'])} presets x 2 bank modes)",
        f"  hands closed {summary['hands_closed']}, actions accepted {summary['actions_accepted']}, "
        f"refused {summary['requests_refused']}, POSTs {summary['post_requests']}",
        f"  retries {summary['retries']} (requests retried {summary['requests_retried']}, unanswered attempts "
        f"{summary['dropped_attempts']}, answers replayed {summary['replayed_answers']}, deliberate repeats "
        f"{summary['deliberate_repeats']})",
        f"  faults {summary['faults']}:",
    ]
    lines.append(
        f"    {'kind':<20} {'count':>5} {'down':>6} {'ready':>13} {'next action':>13}   (median / max seconds)"
    )
    for kind, r in summary["recovery"].items():
        lines.append(
            f"    {kind:<20} {r['count']:>5} {r['down_median_s']:>6.1f} {r['ready_median_s']:>6.2f}/"
            f"{r['ready_max_s']:<6.2f} {r['action_median_s']:>6.2f}/{r['action_max_s']:<6.2f}"
            + (
                f"  {r['dropped_requests']} dropped requests answered after {r['answered_median_s']:.2f}/"
                f"{r['answered_max_s']:.2f}"
                if kind == "client_drop"
                else ""
            )
        )
    for exit_ in summary["exited_by_themselves"]:
        lines.append(
            f"  {exit_['process']} exited by itself (restarted by the supervisor, back after "
            f"{exit_['back_after_s']:.1f}s): {exit_['reason']}"
        )
    late = summary["timeouts_fired_after_deadline_s"]
    lines.append(
        f"  deadlines: {late['count']} moved on after their deadline, median {late['median']:.2f}s, "
        f"p99 {late['p99']:.2f}s, max {late['max']:.2f}s late (sweep {SWEEP_INTERVAL_S:.0f}s + grace "
        f"{SWEEP_GRACE_S:.0f}s; slack {SLACK_S:.0f}s)"
    )
    lines.append(f"  http: {', '.join(f'{k} {v}' for k, v in sorted(summary['http'].items()))}")
    keys = ", ".join(f"{k} {v}" for k, v in summary["redis_keys"].items())
    lines.append(f"  Redis keys at the end, by family (kit/redis_state.py): {keys}")
    polls = summary["long_polls"]
    polled = ", ".join(f"{k} {v}" for k, v in sorted(polls.items())) or "none"
    lines.append(f"  long-polls on the live server (answers by status): {polled}")
    restore = summary.get("restore")
    if restore and "recovery_time_s" in restore:
        lines.append(
            f"  restore to T ({restore['target']}): ready in {restore['recovery_time_s']:.2f}s (files "
            f"{restore['restore_s']:.2f}s; backups: full {restore['full_backup_s']:.1f}s, incremental "
            f"{restore['incremental_backup_s']:.1f}s); {restore['hands_restored']} closed hands "
            f"({restore['hands_at_t']} seen at T), {restore['checkpoints_restored']} checkpoints "
            f"({restore['checkpoints_at_t']} at T); restore point {restore['recovery_point_gap_s']:.3f}s before T; "
            f"exported hands the outside verifier passes: {restore.get('exported_hands_verified', 'none')}"
        )
    lines.append("  invariants:")
    lines += [f"    {'ok ' if v.startswith('ok') else 'BAD'} {name}: {v}" for name, v in summary["checks"].items()]
    if summary["violations"]:
        lines.append("  violations:")
        lines += [f"    - {v}" for v in summary["violations"][:50]]
    return "\n".join(lines)


def print_summary(summary: dict[str, Any], *, as_json: bool) -> int:
    """Print the summary (JSON or the human report) on stdout; the exit code: 0 when every invariant held."""
    if as_json:
        write_json(sys.stdout, summary)
    else:
        print(render(summary), flush=True)
    return 0 if summary["ok"] else 1

