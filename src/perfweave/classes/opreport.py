"""An opreport-compatible image-level report of an OProfile session directory.

:func:`opreport` does what ``opreport --session-dir=DIR [--merge=...] [-x] [specs]`` does
without ``-l``: list the session's sample files, keep those the profile specification
selects (never call-graph files), arrange them into classes, read the sample counts and
print the summary. Errors carry opreport's text; the CLI prints them as opreport does.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike

from perfweave.classes.archive import ArchiveLimits, session_archive
from perfweave.classes.arrange import ProfileClasses, arrange
from perfweave.classes.opreport_format import describe_classes, format_image_report
from perfweave.classes.opreport_merge import MergeOptions
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.classes.spec import parse_sample_paths, scan_session
from perfweave.classes.summary import load_samples
from perfweave.errors import SpecError

NO_FILES = (
    "No sample file found: try running opcontrol --dump\n"
    "or specify a session containing sample files\n"
)


def session_classes(
    session_dir: str | PathLike[str],
    specs: str | Iterable[str] = (),
    merge: str | Iterable[str] | MergeOptions = (),
    *,
    exclude_dependent: bool = False,
    samples: bool = True,
    archive_limits: ArchiveLimits | None = None,
) -> ProfileClasses:
    """Classes of the sample files a profile specification selects in a session directory
    (or a ``.tar.gz`` of one, as the CLI's ``--session-dir`` takes: unpacked while read,
    within ``archive_limits``; the classes' file names then point into the unpacked copy,
    which is removed)."""
    merge = MergeOptions.parse(merge, exclude_dependent=exclude_dependent)
    spec = ProfileSpec.parse(specs)
    with session_archive(session_dir, archive_limits) as folder:
        files = sorted({f for s in spec.sessions() for f in scan_session(folder, s)})
        if not files:
            raise SpecError(NO_FILES)
        table = parse_sample_paths(files).table
        table = table[spec.mask(table, exclude_dependent=exclude_dependent)]
        classes = arrange(table, merge, exclude_dependent=exclude_dependent)
        return load_samples(classes) if samples else classes


def opreport(
    session_dir: str | PathLike[str],
    specs: str | Iterable[str] = (),
    merge: str | Iterable[str] | MergeOptions = (),
    *,
    exclude_dependent: bool = False,
    verbose_sfile: bool = False,
    archive_limits: ArchiveLimits | None = None,
) -> str:
    """The text opreport prints for an image-level report of ``session_dir`` (a session
    directory or a ``.tar.gz`` of one, unpacked within ``archive_limits``: see
    :class:`~perfweave.classes.ArchiveLimits`).

    ``verbose_sfile`` adds what ``--verbose=sfile`` adds: the matched sample files and the
    dump of the classes before the report.
    """
    # the text reads sample file headers: unpack once, for the whole report
    with session_archive(session_dir, archive_limits) as folder:
        classes = session_classes(folder, specs, merge, exclude_dependent=exclude_dependent)
        text = format_image_report(classes)
    if not verbose_sfile:
        return text
    files = classes.table["filename"].tolist()
    lines = ["", "", "Archive: ", f"Matched sample files: {len(files)}", *files]
    return "\n".join([*lines, *describe_classes(classes), "", ""]) + text
