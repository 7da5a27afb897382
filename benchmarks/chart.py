"""Draw the benchmark chart the docs show, from `benchmarks/run.py --json`.

    python benchmarks/chart.py benchmarks/results.json docs/images/benchmarks.png

One row per goal: toolkit's median over the reference's median, both from the
same run, as a dot (green when the goal is met, red when not) against the
goal's bound (a black bar), on a log scale since the ratios run from about a
thousandth to about ten. Lower is faster, except for calls per second, where
the goal is a lower bound. matplotlib comes from benchmarks/requirements.txt.
"""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

MET = "#2e7d32"
MISSED = "#c62828"


def draw(results: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    goals = results["goals"]
    figure, axis = plt.subplots(figsize=(11, 0.55 * len(goals) + 1.8))
    rows = range(len(goals))
    for row, goal in zip(rows, goals, strict=True):
        colour = MET if goal["met"] else MISSED
        axis.plot(
            [goal["limit"], goal["ratio"]], [row, row], color="#bdbdbd", linewidth=1
        )
        axis.plot([goal["limit"]], [row], marker="|", color="black", markersize=14)
        axis.plot([goal["ratio"]], [row], marker="o", color=colour, markersize=7)
        axis.text(
            max(goal["ratio"], goal["limit"]) * 1.25,
            row,
            f"{goal['ratio']:.3g}×  (goal {goal['comparison']} {goal['limit']:g}×)",
            va="center",
            fontsize=8,
            color=colour,
        )
    axis.axvline(1.0, color="#9e9e9e", linestyle=":", linewidth=1)
    axis.set_xscale("log")
    every = [goal["ratio"] for goal in goals] + [goal["limit"] for goal in goals]
    axis.set_xlim(min(every) / 2, max(every) * 60)
    axis.set_yticks(
        list(rows), [textwrap.fill(goal["goal"], 52) for goal in goals], fontsize=8
    )
    axis.invert_yaxis()
    axis.tick_params(axis="x", labelsize=7)
    axis.set_xlabel("toolkit's median / the reference's median, same run", fontsize=8)
    for side in ("top", "right"):
        axis.spines[side].set_visible(False)
    figure.legend(
        handles=[
            Line2D([], [], marker="o", color=MET, linestyle="", label="goal met"),
            Line2D([], [], marker="o", color=MISSED, linestyle="", label="goal missed"),
            Line2D([], [], marker="|", color="black", linestyle="", label="goal"),
        ],
        loc="upper center",
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    figure.suptitle(
        f"Ratio goals, measured side by side. {results['machine'].replace('`', '')}",
        y=0.005,
        va="bottom",
        fontsize=8,
        color="#616161",
    )
    figure.tight_layout(rect=(0, 0.03, 1, 0.96))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: python benchmarks/chart.py RESULTS.json CHART.png")
    with open(sys.argv[1], encoding="utf-8") as source:
        results = json.load(source)
    draw(results, sys.argv[2])
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
