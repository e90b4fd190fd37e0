"""cs_report_files.py - finding and reading the shim's report files, for
the report checks (52_report_*.sh; python3 standard library)."""
import csv
import glob
import sys


def one(pattern):
    """The one file matching pattern; exits the check if there are
    none or several."""
    files = glob.glob(pattern)
    if len(files) != 1:
        sys.exit("expected one file %s, found %s" % (pattern, files))
    return files[0]


def csv_rows(path):
    """The rows of a report CSV as dicts (its '#' lines left out)."""
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))
