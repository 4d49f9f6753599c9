"""Arrange sample files into profile classes, one per report column (opreport's arrange).

Every sample file gets a class *template* (event, count, unit mask, tgid, tid, cpu, with
merged fields blanked); files with equal templates form one class. Classes are ordered by
cpu, tgid, tid, unit mask (numerically, ``all`` last), then event name and count (as
strings), named along the single axis they differ in (:mod:`perfweave.classes.axis`), and
hold, per application image, the application's own files and its dependent-image sets.

The work is columnar: templates, class ids and orderings are pandas operations over the
spec table; Python loops only run over the (few) resulting groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import reduce

import numpy as np
import pandas as pd

from perfweave.classes._groups import codes_of, group_ids, rows_by_group
from perfweave.classes.axis import class_longnames, identify_axis
from perfweave.classes.merge_options import MergeOptions
from perfweave.classes.spec import SPEC_COLUMNS, SampleSpec, specs_table
from perfweave.errors import ParseError, SpecError

TEMPLATE_FIELDS = ("event", "count", "unitmask", "tgid", "tid", "cpu")
_ALL = np.int64(2**62)  # "all" sorts after every number, as in opreport


@dataclass(frozen=True)
class ProfileTemplate:
    """What every file of a class shares; merged fields are ``""``."""

    event: str
    count: str
    unitmask: str
    tgid: str
    tid: str
    cpu: str


@dataclass(frozen=True)
class DependentSet:
    """Files of one dependent image (library, kernel module, anon region) of an application."""

    lib_image: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class ProfileSet:
    """One application image in one class: its own files and its dependent-image sets."""

    image: str
    files: tuple[str, ...]
    deps: tuple[DependentSet, ...]


@dataclass(frozen=True)
class ProfileClass:
    """One report column: its template, short and long name, and profile sets."""

    template: ProfileTemplate
    name: str
    longname: str
    profiles: tuple[ProfileSet, ...]


@dataclass(frozen=True)
class ProfileClasses:
    """The classes of a profile: plain attributes for code and widgets.

    ``classes`` in column order; ``axis`` one of event / tgid / tid / cpu; ``names`` and
    ``longnames`` as opreport prints them; ``event`` the shared event description (empty on
    the event axis); ``table`` the selected spec rows with their ``class`` id, ``app`` (the
    application image after merging) and ``binary`` (the image the samples fell in).
    """

    classes: tuple[ProfileClass, ...]
    axis: str
    merge: MergeOptions
    table: pd.DataFrame = field(repr=False)
    event: str = ""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.classes]

    @property
    def longnames(self) -> list[str]:
        return [c.longname for c in self.classes]

    @property
    def templates(self) -> pd.DataFrame:
        """One row per class with the template fields."""
        return pd.DataFrame([vars(c.template) for c in self.classes], columns=list(TEMPLATE_FIELDS))

    def describe(self) -> pd.DataFrame:
        """One row per class: name, long name, template fields, files, applications and
        (when loaded) samples -- what a class picker lists."""
        table = self.table
        frame = self.templates
        frame.insert(0, "longname", self.longnames)
        frame.insert(0, "name", self.names)
        by_class = table.groupby("class")
        frame["files"] = by_class.size().reindex(range(len(self)), fill_value=0).to_numpy()
        frame["applications"] = [len(c.profiles) for c in self.classes]
        if "samples" in table:
            sums = by_class["samples"].sum().reindex(range(len(self)), fill_value=0)
            frame["samples"] = sums.to_numpy()
        frame.index.name = "class"
        return frame

    def report(self, by: str = "image") -> pd.DataFrame:
        """The columnar report (see :func:`perfweave.classes.report.report`)."""
        from perfweave.classes.report import report

        return report(self, by=by)

    def __len__(self) -> int:
        return len(self.classes)

    def __iter__(self):
        return iter(self.classes)


def as_spec_table(
    specs: pd.DataFrame | Sequence[SampleSpec] | Iterable[SampleSpec],
) -> pd.DataFrame:
    """A private copy of the spec table (from a table or :class:`SampleSpec` records)."""
    if isinstance(specs, pd.DataFrame):
        missing = [c for c in SPEC_COLUMNS if c not in specs.columns]
        if missing:
            raise SpecError(f"spec table lacks the columns {missing}")
        return specs.reset_index(drop=True).copy()
    return specs_table(list(specs))


def _order_key(values: pd.Series, column: str, filenames: pd.Series) -> np.ndarray:
    """Numeric sort key of a tgid/tid/cpu/unitmask column: ``all`` last, merged ``""`` equal.

    Converts each distinct value once (a column has few distinct values).
    """
    codes, uniques = pd.factorize(values.astype(object))
    text = pd.Series(uniques, dtype=object)
    nums = pd.to_numeric(text, errors="coerce")
    special = text.isin(["all", ""])
    bad = nums.isna() & ~special
    if bad.any():
        pos = int(np.flatnonzero(codes == int(np.flatnonzero(bad.to_numpy())[0]))[0])
        raise ParseError(
            filenames.iloc[pos], f"a number or 'all' in the {column} field", found=values.iloc[pos]
        )
    key = nums.fillna(0).astype(np.int64).to_numpy(copy=True)
    key[(text == "all").to_numpy()] = _ALL
    key[(text == "").to_numpy()] = -1
    return key[codes]


def _templates(table: pd.DataFrame, merge: MergeOptions) -> pd.DataFrame:
    out = table[list(TEMPLATE_FIELDS)].astype(object).copy()
    for col in ("unitmask", "tgid", "tid", "cpu"):
        if getattr(merge, col):
            out[col] = ""
    return out


def _unit_mask(text: str) -> int:
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        return 0


def describe_event(template: ProfileTemplate, unit_mask: int) -> str:
    """The ``Counted ... events`` line (without OProfile's event description tables)."""
    return (
        f"Counted {template.event} events with a unit mask of 0x{unit_mask:02x} "
        f"count {template.count}"
    )


def arrange(
    specs: pd.DataFrame | Sequence[SampleSpec],
    merge: str | Iterable[str] | MergeOptions = (),
    *,
    exclude_dependent: bool = False,
) -> ProfileClasses:
    """Classify sample files into :class:`ProfileClasses` (opreport's arrange + identify).

    ``specs`` is a spec table (:func:`~perfweave.classes.spec.parse_sample_paths`) or
    :class:`SampleSpec` records, in opreport's file order (sorted paths); it is not
    modified. ``merge`` takes opreport's ``--merge`` words. Raises
    :class:`~perfweave.errors.AxisConflict` when the classes differ along two axes and
    :class:`~perfweave.errors.SpecError` when no file is left.
    """
    merge = MergeOptions.parse(merge, exclude_dependent=exclude_dependent)
    table = as_spec_table(specs)
    if exclude_dependent:
        table = table[(table["lib_image"] == table["image"]).to_numpy()].reset_index(drop=True)
    if table.empty:
        raise SpecError("no sample files found: profile specification too strict ?")
    lib = table["lib_image"].astype(object)
    binary = lib.where(lib != "", table["image"])
    table["binary"] = binary
    table["app"] = binary if merge.lib else table["image"].astype(object)

    templ = _templates(table, merge)
    keys = [
        _order_key(templ["cpu"], "cpu", table["filename"]),
        _order_key(templ["tgid"], "tgid", table["filename"]),
        _order_key(templ["tid"], "tid", table["filename"]),
        _order_key(templ["unitmask"], "unitmask", table["filename"]),
        codes_of(templ["event"], sort=True)[0],
        codes_of(templ["count"], sort=True)[0],
    ]
    class_ids, first_rows = group_ids(keys, lexicographic=True)
    table["class"] = class_ids
    # the first file of each class gives its template text (opreport keeps the first)
    class_templates = templ.iloc[first_rows].reset_index(drop=True)

    axis, names = identify_axis(class_templates, merge)
    profiles = _profile_sets(table, len(class_templates))
    templates = [ProfileTemplate(*row) for row in class_templates.itertuples(index=False)]
    masks = [_class_unit_mask(t, p, table, merge) for t, p in zip(templates, profiles)]
    longnames = class_longnames(class_templates, axis)
    if longnames is None:
        longnames = [describe_event(t, m) for t, m in zip(templates, masks)]
    event = "" if axis == "event" else describe_event(templates[0], masks[0])
    classes = tuple(
        ProfileClass(t, n, ln, p) for t, n, ln, p in zip(templates, names, longnames, profiles)
    )
    return ProfileClasses(classes, axis, merge, table, event)


def _class_unit_mask(
    template: ProfileTemplate,
    profiles: tuple[ProfileSet, ...],
    table: pd.DataFrame,
    merge: MergeOptions,
) -> int:
    """The unit mask to describe: with --merge=unitmask the OR over the first profile set."""
    if not merge.unitmask:
        return _unit_mask(template.unitmask)
    first = profiles[0]
    files = set(first.files).union(*(d.files for d in first.deps))
    masks = table.loc[table["filename"].isin(files), "unitmask"]
    return reduce(lambda a, b: a | b, (_unit_mask(m) for m in pd.unique(masks)), 0)


def groups_in_order(frame: pd.DataFrame, keys: list[str]) -> list[tuple[tuple, np.ndarray]]:
    """(key values, row positions) per group of ``frame``, in order of first appearance."""
    cols = [codes_of(frame[k])[0] for k in keys]
    ids, first = group_ids(cols, lexicographic=False)
    values = [frame[k].to_numpy(dtype=object)[first] for k in keys]
    return list(zip(zip(*values), rows_by_group(ids, len(first))))


def _profile_sets(table: pd.DataFrame, n_classes: int) -> list[tuple[ProfileSet, ...]]:
    """Per class, the profile sets in first-appearance order (dependents likewise)."""
    files = table["filename"].to_numpy(dtype=object)
    groups = groups_in_order(table, ["class", "app", "binary"])
    per_class: list[dict[str, tuple[list, list]]] = [{} for _ in range(n_classes)]
    for (cls, app, binary), rows in groups:
        own, deps = per_class[cls].setdefault(app, ([], []))
        chosen = tuple(files[rows])
        if binary == app:
            own.extend(chosen)
        else:
            deps.append(DependentSet(binary, chosen))
    return [
        tuple(ProfileSet(app, tuple(own), tuple(deps)) for app, (own, deps) in apps.items())
        for apps in per_class
    ]
