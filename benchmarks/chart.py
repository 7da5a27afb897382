"""Draw the benchmark chart the docs show, from `benchmarks/run.py --json`.

    python benchmarks/chart.py benchmarks/results.json docs/images/benchmarks.png

One panel per figure, one bar per library's median (log scale: the fastest
and slowest paths differ by up to a thousand times), toolkit first and in
colour, the peers in grey, the floors (the least the work can cost) hatched.
Shorter is faster. matplotlib comes from benchmarks/requirements.txt.
"""

from __future__ import annotations

import json
import sys
from typing import Any

COLOURS = {
    "toolkit": "#2e7d32",
    "toolkit variant": "#81c784",
    "peer": "#9e9e9e",
    "floor": "#e0e0e0",
}


def draw(results: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    scenarios = results["scenarios"]
    heights = [len(scenario["paths"]) + 1.2 for scenario in scenarios]
    figure, axes = plt.subplots(
        len(scenarios),
        1,
        figsize=(10, 0.32 * sum(heights) + 1.2),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,  # a list of panels even for one figure (`--only`)
    )
    for axis, scenario in zip(axes[:, 0], scenarios, strict=True):
        panel(axis, scenario)
    figure.legend(
        handles=[
            Patch(facecolor=colour, edgecolor="#616161", label=kind)
            for kind, colour in COLOURS.items()
        ],
        loc="upper center",
        ncol=len(COLOURS),
        frameon=False,
        fontsize=9,
    )
    figure.suptitle(
        f"Medians, shorter is faster (log scale). {results['machine'].replace('`', '')}",
        y=0.005,
        va="bottom",
        fontsize=8,
        color="#616161",
    )
    figure.tight_layout(rect=(0, 0.02, 1, 0.97))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def panel(axis: Any, scenario: dict[str, Any]) -> None:
    paths = scenario["paths"]
    unit = scenario["unit"]
    labels = [entry["library"] for entry in paths]
    values = [entry["median"] for entry in paths]
    rows = range(len(paths))
    bars = axis.barh(
        rows,
        values,
        color=[COLOURS[entry["kind"]] for entry in paths],
        edgecolor="#616161",
        linewidth=0.5,
        hatch=None,
    )
    for bar, entry in zip(bars, paths, strict=True):
        if entry["kind"] == "floor":
            bar.set_hatch("//")
    axis.set_xscale("log")
    axis.set_yticks(list(rows), labels, fontsize=8)
    axis.invert_yaxis()
    axis.set_title(scenario["figure"], fontsize=9, loc="left")
    axis.tick_params(axis="x", labelsize=7)
    axis.set_xlim(min(values) / 2, max(values) * 6)
    for row, value in zip(rows, values, strict=True):
        axis.text(value * 1.08, row, f"{value:,.2f} {unit}", va="center", fontsize=7)
    for side in ("top", "right"):
        axis.spines[side].set_visible(False)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: python benchmarks/chart.py RESULTS.json CHART.png")
    with open(sys.argv[1], encoding="utf-8") as source:
        results = json.load(source)
    draw(results, sys.argv[2])
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
