"""Arrange sample files into profile classes, one per report column (opreport's arrange).

Every sample file gets a class *template* (event, count, unit mask, tgid, tid, cpu, with
merged fields blanked); files with equal templates form one class. Classes are ordered by
cpu, tgid, tid, unit mask (numerically, ``all`` last), then event name and count (as
strings), named along the single axis they differ in (:mod:`perfweave.classes.axis`), and
hold, per application image, the application's own files and its dependent-image sets.

The work is columnar: class ids come from integer order keys
(:class:`~perfweave.classes.spec_codes.SpecCodes`, computed once per table and reusable for
every merge choice and sub-selection); Python loops only run over the (few) classes. The
per-file profile sets are built when one of them is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perfweave.classes._groups import codes_of, group_ids, int_bincount, rows_by_group
from perfweave.classes.axis import class_longnames, identify_axis
from perfweave.classes.opreport_merge import MergeOptions
from perfweave.classes.spec import SPEC_COLUMNS, SampleSpec, specs_table
from perfweave.classes.spec_codes import NUMERIC_FIELDS, SpecCodes
from perfweave.errors import SpecError

TEMPLATE_FIELDS = ("event", "count", "unitmask", "tgid", "tid", "cpu")


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


class ProfileClass:
    """One report column: its template, short and long name, and profile sets.

    ``profiles`` may be given as a zero-argument callable: :func:`arrange` builds the
    (per-file) profile sets of all classes only when one of them is first read.
    """

    __slots__ = ("_profiles", "longname", "name", "template")

    def __init__(
        self,
        template: ProfileTemplate,
        name: str,
        longname: str,
        profiles: tuple[ProfileSet, ...] | Callable[[], tuple[ProfileSet, ...]],
    ) -> None:
        self.template = template
        self.name = name
        self.longname = longname
        self._profiles = profiles

    @property
    def profiles(self) -> tuple[ProfileSet, ...]:
        if callable(self._profiles):
            self._profiles = self._profiles()
        return self._profiles

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProfileClass):
            return NotImplemented
        mine = (self.template, self.name, self.longname, self.profiles)
        return mine == (other.template, other.name, other.longname, other.profiles)

    def __hash__(self) -> int:
        return hash((self.template, self.name, self.longname))

    def __repr__(self) -> str:
        return f"ProfileClass(template={self.template!r}, name={self.name!r})"


@dataclass(frozen=True)
class ClassCodes:
    """Integer codes of the arranged rows, for the sums of reports: ``app`` and ``binary``
    index ``names`` (sorted image names), one entry per row of the classes' table."""

    names: np.ndarray
    app: np.ndarray
    binary: np.ndarray


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
    codes: ClassCodes | None = field(default=None, repr=False, compare=False)

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

    def row_codes(self) -> ClassCodes:
        """:attr:`codes` when they describe :attr:`table`, else computed from its names."""
        codes = self.codes
        if codes is not None and len(codes.app) == len(self.table):
            return codes
        app = self.table["app"].to_numpy(dtype=object)
        binary = self.table["binary"].to_numpy(dtype=object)
        n = len(app)
        both, names = pd.factorize(np.concatenate([app, binary]), sort=True)
        both = both.astype(np.int64)
        return ClassCodes(np.asarray(names, dtype=object), both[:n], both[n:])

    def describe(self) -> pd.DataFrame:
        """One row per class: name, long name, template fields, files, applications and
        (when loaded) samples -- what a class picker lists."""
        table = self.table
        n = len(self)
        frame = self.templates
        frame.insert(0, "longname", self.longnames)
        frame.insert(0, "name", self.names)
        cls = table["class"].to_numpy(dtype=np.int64)
        frame["files"] = np.bincount(cls, minlength=n)
        codes = self.row_codes()
        width = max(len(codes.names), 1)
        apps = np.unique(cls * width + codes.app)  # distinct (class, application) pairs
        frame["applications"] = np.bincount(apps // width, minlength=n)
        if "samples" in table:
            weights = table["samples"].to_numpy(dtype=np.int64)
            frame["samples"] = int_bincount(cls, weights, n)
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


def _merged(merge: MergeOptions) -> set[str]:
    return {f for f in NUMERIC_FIELDS if getattr(merge, f)}


def arrange(
    specs: pd.DataFrame | Sequence[SampleSpec] | SpecCodes,
    merge: str | Iterable[str] | MergeOptions = (),
    *,
    exclude_dependent: bool = False,
) -> ProfileClasses:
    """Classify sample files into :class:`ProfileClasses` (opreport's arrange + identify).

    ``specs`` is a spec table (:func:`~perfweave.classes.spec.parse_sample_paths`),
    :class:`SampleSpec` records or the :class:`~perfweave.classes.spec_codes.SpecCodes` of
    a table (computed once, reused by every call), in opreport's file order (sorted
    paths); it is not modified. ``merge`` takes opreport's ``--merge`` words. Raises
    :class:`~perfweave.errors.AxisConflict` when the classes differ along two axes and
    :class:`~perfweave.errors.SpecError` when no file is left.
    """
    merge = MergeOptions.parse(merge, exclude_dependent=exclude_dependent)
    coded = specs if isinstance(specs, SpecCodes) else SpecCodes.of(as_spec_table(specs))
    if exclude_dependent:
        coded = coded.take(coded.own)
    if len(coded) == 0:
        raise SpecError("no sample files found: profile specification too strict ?")
    merged = _merged(merge)
    coded.check_numbers(tuple(f for f in NUMERIC_FIELDS if f not in merged))
    zero = np.zeros(len(coded), dtype=np.int64)
    keys = [zero if f in merged else coded.keys[f] for f in NUMERIC_FIELDS]
    keys += [coded.keys["event"], coded.keys["count"]]
    class_ids, first_rows = group_ids(keys, lexicographic=True)

    app_code = coded.binary if merge.lib else coded.image
    table = coded.table.copy(deep=False)  # new columns below; the rows are not copied
    table.index = pd.RangeIndex(len(table))
    table["binary"] = pd.Series(coded.names[coded.binary], dtype=object)
    table["app"] = pd.Series(coded.names[app_code], dtype=object)
    table["class"] = class_ids
    codes = ClassCodes(coded.names, app_code, coded.binary)

    # the first file of each class gives its template text (opreport keeps the first)
    class_templates = table.iloc[first_rows][list(TEMPLATE_FIELDS)].astype(object)
    class_templates = class_templates.reset_index(drop=True)
    for f in merged:
        class_templates[f] = ""
    axis, names = identify_axis(class_templates, merge)
    templates = [ProfileTemplate(*row) for row in class_templates.itertuples(index=False)]
    masks = _class_unit_masks(templates, table, codes, first_rows, merge)
    longnames = class_longnames(class_templates, axis)
    if longnames is None:
        longnames = [describe_event(t, m) for t, m in zip(templates, masks)]
    event = "" if axis == "event" else describe_event(templates[0], masks[0])
    sets = _ProfileSetsOnDemand(table, len(templates))
    classes = tuple(
        ProfileClass(t, n, ln, sets.getter(k))
        for k, (t, n, ln) in enumerate(zip(templates, names, longnames))
    )
    return ProfileClasses(classes, axis, merge, table, event, codes)


def _class_unit_masks(
    templates: list[ProfileTemplate],
    table: pd.DataFrame,
    codes: ClassCodes,
    first_rows: np.ndarray,
    merge: MergeOptions,
) -> list[int]:
    """The unit mask to describe per class: with --merge=unitmask the OR over the files of
    the class's first profile set (the application of its first file, with its dependents)."""
    if not merge.unitmask:
        return [_unit_mask(t.unitmask) for t in templates]
    cls = table["class"].to_numpy(dtype=np.int64)
    in_first = codes.app == codes.app[first_rows][cls]
    um = table["unitmask"].to_numpy(dtype=object)[in_first]
    masks = [0] * len(templates)
    for k, text in set(zip(cls[in_first].tolist(), um.tolist())):
        masks[k] |= _unit_mask(text)
    return masks


class _ProfileSetsOnDemand:
    """The profile sets of all classes, built on the first request for any of them."""

    def __init__(self, table: pd.DataFrame, n_classes: int) -> None:
        self._table = table
        self._n = n_classes
        self._sets: list[tuple[ProfileSet, ...]] | None = None

    def getter(self, k: int) -> Callable[[], tuple[ProfileSet, ...]]:
        return lambda: self.sets()[k]

    def sets(self) -> list[tuple[ProfileSet, ...]]:
        if self._sets is None:
            self._sets = _profile_sets(self._table, self._n)
            self._table = None  # type: ignore[assignment]
        return self._sets


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
