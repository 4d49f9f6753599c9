"""Profile classes: opreport's arrange / identify / invert for OProfile and perf data.

Sample files (or perf samples) become :class:`SampleSpec` rows; :func:`arrange` sorts them
into :class:`ProfileClasses` (one per report column) that differ along exactly one axis;
:func:`invert` lists each binary once with the applications that used it; :func:`report`
gives the columnar report as a DataFrame and :func:`opreport` the text opreport prints.
:class:`ClassStudy` holds one choice of spec, merge and axis over a source read once and
answers what a view of it asks (the computation behind the ClassPicker widget).
"""

from perfweave.classes.archive import ArchiveLimits, is_session_archive, session_archive
from perfweave.classes.arrange import (
    DependentSet,
    ProfileClass,
    ProfileClasses,
    ProfileSet,
    ProfileTemplate,
    arrange,
)
from perfweave.classes.axis import AXES, conflict_message, identify_axis
from perfweave.classes.invert import ImageSet, InvertedProfile, invert, invert_table
from perfweave.classes.opreport import opreport, session_classes
from perfweave.classes.opreport_format import format_image_report, format_percent
from perfweave.classes.opreport_merge import MergeOptions
from perfweave.classes.perf import (
    perf_report_specs,
    perf_sample_specs,
    read_perf_callchains,
    read_perf_json,
    read_perf_report,
    read_perf_script,
)
from perfweave.classes.profile_spec import ProfileSpec
from perfweave.classes.report import ReportArrays, report, report_arrays
from perfweave.classes.report_rows import ReportRows, top_images
from perfweave.classes.resolve import Resolution, axis_merge, resolutions
from perfweave.classes.samplefile import SampleFileHeader, read_header, read_samples, sample_count
from perfweave.classes.source import ClassSource, detect_kind, load_source, text
from perfweave.classes.spec import (
    ParsedPaths,
    SampleSpec,
    parse_sample_path,
    parse_sample_paths,
    read_listing,
    scan_session,
)
from perfweave.classes.spec_codes import SpecCodes
from perfweave.classes.study import ClassStudy, opreport_argv
from perfweave.classes.summary import ImageSummary, load_samples, summarize

__all__ = [
    "ArchiveLimits",
    "session_archive",
    "resolutions",
    "load_source",
    "is_session_archive",
    "detect_kind",
    "axis_merge",
    "Resolution",
    "ClassSource",
    "ClassStudy",
    "AXES",
    "DependentSet",
    "ImageSet",
    "ImageSummary",
    "InvertedProfile",
    "MergeOptions",
    "ParsedPaths",
    "ProfileClass",
    "ProfileClasses",
    "ProfileSet",
    "ProfileSpec",
    "ProfileTemplate",
    "ReportArrays",
    "ReportRows",
    "SampleFileHeader",
    "SampleSpec",
    "SpecCodes",
    "arrange",
    "conflict_message",
    "format_image_report",
    "format_percent",
    "identify_axis",
    "invert",
    "invert_table",
    "load_samples",
    "opreport",
    "opreport_argv",
    "parse_sample_path",
    "parse_sample_paths",
    "perf_report_specs",
    "perf_sample_specs",
    "read_header",
    "read_listing",
    "read_perf_callchains",
    "read_perf_json",
    "read_perf_report",
    "read_perf_script",
    "read_samples",
    "report",
    "report_arrays",
    "sample_count",
    "scan_session",
    "session_classes",
    "summarize",
    "text",
    "top_images",
]
