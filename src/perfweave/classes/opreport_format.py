"""opreport's text layout for an image-level report: headers, columns, rows, indentation.

Each class is a 17-character column (9-digit samples, a space, a 7-character percent) with
its name right-aligned above it (cut to 14 characters + ``...``). Applications are printed
with percentages of the class totals; their image rows, indented by a tab, with
percentages of the application's samples; image rows with no samples in any class are left
out, and an application with only its own image shows no image rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfweave.classes.arrange import ProfileClasses
from perfweave.classes.samplefile import read_header
from perfweave.classes.summary import ImageSummary, summarize
from perfweave.errors import ParseError

PERCENT_INT_WIDTH = 2
PERCENT_FRACT_WIDTH = 4
PERCENT_WIDTH = PERCENT_INT_WIDTH + PERCENT_FRACT_WIDTH + 1
COLUMN_WIDTH = 9 + 1 + PERCENT_WIDTH


def format_percent(value: float) -> str:
    """A percentage in 7 characters: ``73.6364``, `` 2.4691``, ``100.000``, ``      0``."""
    if value == 0.0:
        return " " * (PERCENT_INT_WIDTH + PERCENT_FRACT_WIDTH) + "0"
    text = f"{value:{PERCENT_WIDTH}.{PERCENT_FRACT_WIDTH}f}"
    if len(text) > PERCENT_WIDTH:  # fewer decimals rather than a wider column
        digits = max(0, PERCENT_FRACT_WIDTH - (len(text) - PERCENT_WIDTH))
        text = f"{value:{PERCENT_WIDTH}.{digits}f}"
    return text


def format_count(count: int, total: int) -> str:
    """``samples percent`` for one class column, with the trailing space opreport prints."""
    ratio = count / total if total else 0.0
    return f"{count:9d} {format_percent(ratio * 100)} "


def column_headers(names: Sequence[str], indent: bool = False) -> list[str]:
    """The three header lines above the count columns."""
    tab = "\t" if indent else ""
    cut = [n if len(n) <= COLUMN_WIDTH else n[: COLUMN_WIDTH - 3] + "..." for n in names]
    return [
        tab + "".join(f"{n:>{COLUMN_WIDTH}}|" for n in cut),
        tab + "".join("  samples| " + f"{'%|':>{PERCENT_WIDTH}}" for _ in names),
        tab + "".join("-" * 11 + "-" * PERCENT_WIDTH for _ in names),
    ]


def basename(path: str) -> str:
    """opreport's short image name: the part after the last ``/``."""
    return path.rsplit("/", 1)[-1]


def header_lines(classes: ProfileClasses) -> list[str]:
    """The CPU line, the shared event line (not on the event axis) and each class's long name."""
    lines = []
    first = classes.classes[0].profiles[0]
    path = first.files[0] if first.files else first.deps[0].files[0]
    try:
        lines.append(read_header(path).describe_cpu())
    except ParseError:
        lines.append("CPU: unknown (sample file header not readable)")
    if classes.event:
        lines.append(classes.event)
    lines.extend(classes.longnames)
    return lines


def format_summary(summary: ImageSummary, names: Sequence[str]) -> list[str]:
    """Column headers, application rows and indented image rows."""
    n = summary.n_classes
    lines = column_headers(names)
    totals = summary.totals
    blocks = summary.image_blocks()
    for app, row in zip(summary.apps.index, summary.apps[list(range(n))].to_numpy()):
        lines.append(
            "".join(format_count(int(c), int(t)) for c, t in zip(row, totals)) + basename(app)
        )
        block = blocks[app]
        if len(block) <= 1:  # only the application's own image: nothing more to show
            continue
        lines.extend(column_headers(names, indent=True))
        images = block.index.get_level_values("image")
        for image, counts in zip(images, block[list(range(n))].to_numpy()):
            if not np.any(counts):
                continue
            cells = "".join(format_count(int(c), int(t)) for c, t in zip(counts, row))
            lines.append("\t" + cells + basename(image))
    return lines


def describe_classes(classes: ProfileClasses) -> list[str]:
    """opreport's ``--verbose=sfile`` dump of the classes: templates, profile sets, files."""

    def files(paths: tuple[str, ...]) -> list[str]:
        out = []
        for k, path in enumerate(paths):
            out += [
                f"profile_sample_files #{k}:",
                f"sample_filename: {path}",
                "callgraph filenames:",
            ]
        return out

    lines = ["profile_classes:", f"event: {classes.event}", f"cpuinfo: {header_lines(classes)[0]}"]
    for i, pclass in enumerate(classes):
        t = pclass.template
        lines += [f"class #{i}:", f"name: {pclass.name}", f"longname: {pclass.longname}"]
        lines += ["ptemplate:", f"event: {t.event}", f"count: {t.count}"]
        lines += [f"unitmask: {t.unitmask}", f"tgid: {t.tgid}", f"tid: {t.tid}", f"cpu: {t.cpu}"]
        for j, pset in enumerate(pclass.profiles):
            lines += [f"profiles_set #{j}:", f"image: {pset.image}", *files(pset.files)]
            for k, dep in enumerate(pset.deps):
                lines += [
                    f"profile_dep_set #{k}:",
                    f"lib_image: {dep.lib_image}",
                    *files(dep.files),
                ]
    return lines


def format_image_report(classes: ProfileClasses, *, header: bool = True) -> str:
    """The whole image-level report text (classes must carry sample counts)."""
    summary = summarize(classes)
    lines = header_lines(classes) if header else []
    lines += format_summary(summary, classes.names)
    return "\n".join(lines) + "\n"
