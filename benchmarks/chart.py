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


# Sized for a phone as much as a desktop: the picture is 600 pixels wide, so
# a 390-pixel screen shows it at a little over half size, and the text is
# large enough to stay readable there. Each goal's name sits above its row, using
# the whole width, rather than in a column beside the axis.
WIDTH = 5.0  # inches, at DPI
DPI = 120
LABEL = 15  # points
LINE = 0.28  # inches: a line of LABEL text and its spacing
SMALL = 13


def draw(results: dict[str, Any], path: str) -> None:
    import math

    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    goals = results["goals"]
    every = [goal["ratio"] for goal in goals] + [goal["limit"] for goal in goals]
    low, high = min(every) / 3, max(every) * 3
    # Rows from the top, in units of LINE inches: each goal's name (one or
    # more lines), then its dot.
    labels = [textwrap.fill(goal["goal"], 40) for goal in goals]
    rows: list[float] = []
    depth = 0.0
    for label in labels:
        depth += label.count("\n") + 1 + 1.1
        rows.append(depth)
        depth += 0.9
    figure, axis = plt.subplots(figsize=(WIDTH, LINE * depth + 1.5))
    for row, goal, label in zip(rows, goals, labels, strict=True):
        colour = MET if goal["met"] else MISSED
        ratio, limit = goal["ratio"], goal["limit"]
        axis.plot([limit, ratio], [row, row], color="#bdbdbd", linewidth=1.5)
        axis.plot([limit], [row], marker="|", color="black", markersize=18, mew=2)
        axis.plot([ratio], [row], marker="o", color=colour, markersize=10)
        axis.text(low, row - 0.8, label, va="bottom", fontsize=LABEL)

        # The figures on the dot's row, at the edge with more room beside it.
        def place(x: float) -> float:
            return math.log(x / low) / math.log(high / low)

        left = place(min(ratio, limit)) > 1 - place(max(ratio, limit))
        axis.text(
            low if left else high,
            row,
            f"{ratio:.3g}×  (goal {goal['comparison']} {limit:g}×)",
            va="center",
            ha="left" if left else "right",
            fontsize=SMALL,
            color=colour,
        )
    axis.axvline(1.0, color="#9e9e9e", linestyle=":", linewidth=1)
    axis.set_xscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(depth, 0.2)  # the first goal at the top
    axis.set_yticks([])
    axis.tick_params(axis="x", labelsize=SMALL)
    axis.set_xlabel("toolkit's median / the reference's, same run", fontsize=SMALL)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)
    figure.legend(
        handles=[
            Line2D([], [], marker="o", color=MET, linestyle="", label="goal met"),
            Line2D([], [], marker="o", color=MISSED, linestyle="", label="missed"),
            Line2D([], [], marker="|", color="black", linestyle="", label="goal"),
        ],
        loc="upper center",
        ncol=3,
        fontsize=SMALL,
        frameon=False,
    )
    figure.suptitle(
        textwrap.fill(
            f"Ratio goals, measured side by side. {results['machine'].replace('`', '')}",
            56,
        ),
        y=0.005,
        va="bottom",
        fontsize=11,
        color="#616161",
    )
    figure.tight_layout(rect=(0, 0.03, 1, 0.985))
    figure.savefig(path, dpi=DPI)
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
