"""The ``rackplanner`` command: opens the app; subcommands work headless.

Every subcommand takes ``--json``; bad input ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rackplanner.core.catalog import Catalog, load_catalog, user_catalog_dir
from rackplanner.core.errors import InputError
from rackplanner.core.figures import key_figures
from rackplanner.core.fit import check_machine
from rackplanner.core.netbox import add_to_catalog, import_device_type
from rackplanner.core.parts import PART_KINDS
from rackplanner.core.planfile import load_plan
from rackplanner.core.power_text import format_power
from rackplanner.core.rackreport import plan_fabrics, rack_report
from rackplanner.core.summary import format_summary, summarize
from rackplanner.core.topology import derive_topology, format_topology

EXIT_BAD_INPUT = 2
COMMANDS = ("open", "check", "catalog", "topo", "power", "import-netbox", "estimate", "capacity", "export")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--catalog",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a folder of your own catalog YAML files (entries override by id; repeatable)",
    )
    parser = argparse.ArgumentParser(
        prog="rackplanner",
        description="Plan ML hardware: fit, PCIe topology, power, capacity, bill of materials. "
        "With no command, opens the app.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    app = sub.add_parser("open", parents=[common], help="open the app (the default command)")
    app.add_argument("plan", nargs="?", type=Path, help="plan file (default: the last one)")

    check = sub.add_parser("check", parents=[common], help="validate a plan and print what it holds")
    check.add_argument("plan", type=Path)
    check.add_argument("--json", action="store_true", help="machine-readable output")

    catalog = sub.add_parser("catalog", parents=[common], help="list parts with their key figures")
    catalog.add_argument("kind", nargs="?", choices=sorted(PART_KINDS), help="only this kind")
    catalog.add_argument("--search", metavar="TEXT", help="only parts whose id/vendor/model match")
    catalog.add_argument("--json", action="store_true", help="machine-readable output")

    topo = sub.add_parser(
        "topo",
        parents=[common],
        help="PCIe/NVLink topology as nvidia-smi topo -m prints it, with bottlenecks",
    )
    topo.add_argument("plan", type=Path)
    topo.add_argument("--machine", metavar="NAME", help="machine id or name (default: every machine)")
    topo.add_argument("--json", action="store_true", help="machine-readable output")

    power = sub.add_parser(
        "power",
        parents=[common],
        help="per rack and PDU: each line's and breaker's load against its derated limit, normal and failover",
    )
    power.add_argument("plan", type=Path)
    power.add_argument("--rack", metavar="ID", help="only this rack (id or name)")
    power.add_argument("--json", action="store_true", help="machine-readable output")

    netbox = sub.add_parser(
        "import-netbox",
        parents=[common],
        help="add NetBox community device types (YAML) to your catalog as rack devices, switches or PDUs",
    )
    netbox.add_argument("files", nargs="+", type=Path, metavar="FILE")
    netbox.add_argument("--to", type=Path, metavar="DIR", help="catalog folder to add them to (default: yours)")
    netbox.add_argument("--as", dest="as_kind", choices=("rack-device", "switch", "pdu"), help="import as this kind")
    netbox.add_argument("--voltage", type=float, metavar="V", help="a PDU's input voltage, when its plug does not say")
    netbox.add_argument("--current", type=float, metavar="A", help="a PDU's input current, when its plug does not say")
    netbox.add_argument(
        "--wiring", choices=("single", "wye", "delta"), help="a PDU's wiring, when its plug does not say"
    )
    netbox.add_argument("--dry-run", action="store_true", help="check and print, write nothing")
    netbox.add_argument("--json", action="store_true", help="machine-readable output")

    estimate = sub.add_parser(
        "estimate",
        parents=[common],
        help="does a model fit, how fast it decodes and prefills, what the hardware can train",
    )
    estimate.add_argument("--gpu", metavar="ID", help="catalog GPU (with --count)")
    estimate.add_argument("--count", type=int, default=1, metavar="N", help="number of GPUs (default 1)")
    estimate.add_argument("--cpu", metavar="ID", help="catalog CPU for CPU inference (with --sockets)")
    estimate.add_argument("--sockets", type=int, default=1, metavar="N", help="CPU sockets (default 1)")
    estimate.add_argument("--plan", type=Path, metavar="PLAN", help="a plan file: estimate on one of its machines")
    estimate.add_argument("--machine", metavar="NAME", help="machine id or name in --plan")
    estimate.add_argument("--model", metavar="ID", help="catalog LLM")
    estimate.add_argument("--config", type=Path, metavar="JSON", help="a Hugging Face config.json instead of --model")
    estimate.add_argument("--format", default="q4_k_m", metavar="FMT", help="weight format (default q4_k_m)")
    estimate.add_argument("--batch", type=int, default=1, metavar="B", help="sequences decoded together")
    estimate.add_argument("--context", type=int, default=4096, metavar="C", help="tokens per sequence")
    estimate.add_argument(
        "--runtime", default="llama.cpp", help="llama.cpp (layer split), vllm, tensorrt-llm (tensor parallel), vllm-pp"
    )
    estimate.add_argument("--kv-cache", default="fp16", metavar="PREC", help="KV cache precision (default fp16)")
    estimate.add_argument("--prompt", type=int, metavar="N", help="prompt tokens for prefill and time to first token")
    estimate.add_argument("--json", action="store_true", help="machine-readable output")

    capacity = sub.add_parser(
        "capacity", parents=[common], help="which catalog models and formats fit a plan's machine, with speeds"
    )
    capacity.add_argument("plan", type=Path)
    capacity.add_argument("--machine", metavar="NAME", help="machine id or name (needed when the plan has several)")
    capacity.add_argument("--context", type=int, default=4096, metavar="C", help="tokens per sequence")
    capacity.add_argument(
        "--runtime", default="llama.cpp", help="llama.cpp (layer split), vllm, tensorrt-llm (tensor parallel), vllm-pp"
    )
    capacity.add_argument("--json", action="store_true", help="machine-readable output")

    export = sub.add_parser(
        "export", parents=[common], help="bill of materials: a PDF report (and a CSV of the lines) for a vendor"
    )
    export.add_argument("plan", type=Path)
    export.add_argument("--pdf", type=Path, metavar="OUT.pdf", help="write the PDF report here")
    export.add_argument("--csv", type=Path, metavar="OUT.csv", help="write the BOM lines as CSV here")
    export.add_argument("--page-size", choices=("a4", "letter"), default="a4", help="PDF page size (default a4)")
    export.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # "rackplanner [--catalog DIR] [PLAN]" opens the app: supply the implicit command.
    if not args_list or args_list[0] not in (*COMMANDS, "-h", "--help"):
        args_list = ["open", *args_list]
    args = build_parser().parse_args(args_list)
    try:
        catalog = load_catalog(args.catalog)
        # Entries of users' folders that could not be used were skipped; say which, go on.
        for problem in catalog.problems:
            print(f"rackplanner: warning: {problem}", file=sys.stderr)
        if args.command == "check":
            return _check(args.plan, catalog, as_json=args.json)
        if args.command == "topo":
            return _topo(args.plan, catalog, args.machine, as_json=args.json)
        if args.command == "power":
            return _power(args.plan, catalog, args.rack, as_json=args.json)
        if args.command == "import-netbox":
            return _import_netbox(args)
        if args.command == "estimate":
            return _estimate(args, catalog)
        if args.command == "export":
            return _export(args, catalog)
        if args.command == "capacity":
            return _capacity(args, catalog)
        if args.command == "catalog":
            return _catalog(catalog, args.kind, args.search, as_json=args.json)
        return _open_app(args.plan, catalog)
    except InputError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"error": str(exc)}))
        print(f"rackplanner: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _check(path: Path, catalog: Catalog, *, as_json: bool) -> int:
    plan = load_plan(path, catalog)
    summary = summarize(plan, catalog)
    findings = [f for m in plan.machines for f in check_machine(m, catalog, derive_topology(m, catalog))]
    rack_findings = [f for r in plan.racks for f in rack_report(plan, r.id, catalog).findings]
    if as_json:
        data = {"file": str(path), "valid": True, **summary.model_dump()}
        data["findings"] = [f.model_dump() for f in findings]
        data["rack_findings"] = [f.model_dump() for f in rack_findings]
        print(json.dumps(data, indent=2))
    else:
        print(f"{path}: valid")
        print(format_summary(summary))
        if findings:
            print("Findings:")
            for finding in findings:
                print(f"  {finding.severity:<7} [{finding.machine}] {finding.message}")
        if rack_findings:
            print("Rack findings:")
            for rack_finding in rack_findings:
                print(f"  {rack_finding.severity:<7} [{rack_finding.rack}] {rack_finding.message}")
    return 0


def _topo(path: Path, catalog: Catalog, machine_name: str | None, *, as_json: bool) -> int:
    plan = load_plan(path, catalog)
    machines = [m for m in plan.machines if machine_name is None or machine_name in (m.id, m.name)]
    if not machines:
        known = ", ".join(m.id for m in plan.machines) or "none"
        raise InputError(f"{path}: no machine {machine_name!r} (machines: {known})")
    topologies = [derive_topology(m, catalog) for m in machines]
    if as_json:
        print(json.dumps([t.model_dump(mode="json") for t in topologies], indent=2))
    else:
        print("\n".join(format_topology(t) for t in topologies), end="")
    return 0


def _power(path: Path, catalog: Catalog, rack_name: str | None, *, as_json: bool) -> int:
    plan = load_plan(path, catalog)
    racks = [r for r in plan.racks if rack_name is None or rack_name in (r.id, r.name)]
    if rack_name is not None and not racks:
        known = ", ".join(r.id for r in plan.racks) or "none"
        raise InputError(f"{path}: no rack {rack_name!r} (racks: {known})")
    reports = [rack_report(plan, r.id, catalog) for r in racks]
    fabrics = plan_fabrics(plan, catalog)
    if as_json:
        data = {
            "file": str(path),
            "racks": [r.model_dump(mode="json") for r in reports],
            "fabrics": [f.model_dump(mode="json") for f in fabrics],
        }
        print(json.dumps(data, indent=2))
    else:
        print(format_power(catalog, reports, fabrics), end="")
    return 0


def _import_netbox(args: argparse.Namespace) -> int:
    results = [
        import_device_type(
            f, as_kind=args.as_kind, voltage_v=args.voltage, current_a=args.current, wiring=args.wiring
        )
        for f in args.files
    ]
    folder = args.to or user_catalog_dir()
    written = [] if args.dry_run else add_to_catalog(results, folder)
    if args.json:
        data = {"imported": [r.model_dump() for r in results], "written": [str(p) for p in written]}
        print(json.dumps(data, indent=2))
        return 0
    for result in results:
        print(f"{result.path}: {result.kind} {result.part['id']} ({result.part['vendor']} {result.part['model']})")
        for warning in result.warnings:
            print(f"  warning: {warning}")
    for path in written:
        print(f"wrote {path}")
    if args.dry_run:
        print("dry run: nothing written")
    return 0


def _estimate(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.capacity.text import ESTIMATE_OPTIONS, estimate_command

    print(estimate_command(catalog, **{key: value for key, value in vars(args).items() if key in ESTIMATE_OPTIONS}))
    return 0


def _capacity(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.capacity.text import capacity_command

    text = capacity_command(
        catalog, args.plan, machine=args.machine, runtime=args.runtime, context=args.context, as_json=args.json
    )
    print(text)
    return 0


def _catalog(catalog: Catalog, kind: str | None, search: str | None, *, as_json: bool) -> int:
    kind_cls = PART_KINDS[kind] if kind else None
    if search:
        parts = catalog.search(search, kind_cls)
    else:
        parts = [p for p in catalog if kind_cls is None or isinstance(p, kind_cls)]
    parts.sort(key=lambda p: (p.kind, p.vendor.lower(), p.model.lower()))
    if as_json:
        rows = [{"kind": p.kind, **p.model_dump(mode="json")} for p in parts]
        print(json.dumps(rows, indent=2))
        return 0
    if not parts:
        print("no parts match", file=sys.stderr)
        return 1
    current = None
    for part in parts:
        if part.kind != current:
            current = part.kind
            print(f"\n{current}" if current != parts[0].kind else current)
        figures = "  ".join(f"{label} {text}" for label, text in key_figures(part))
        print(f"  {part.id:<28} {part.label:<44} {figures}")
    return 0


def _export(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.report.export import export_report

    if args.pdf is None and args.csv is None:
        raise InputError("export: give --pdf OUT.pdf and/or --csv OUT.csv")
    plan = load_plan(args.plan, catalog)
    for out in (args.pdf, args.csv):
        if out is not None and not out.resolve().parent.is_dir():
            raise InputError(f"{out}: folder {out.resolve().parent} does not exist")
    result = export_report(plan, catalog, pdf=args.pdf, csv=args.csv, page_size=args.page_size)
    if args.json:
        data = {
            "pdf": str(result.pdf.path) if result.pdf else None,
            "pages": result.pdf.pages if result.pdf else None,
            "csv": str(result.csv) if result.csv else None,
        }
        print(json.dumps(data, indent=2))
        return 0
    if result.pdf is not None:
        print(f"wrote {result.pdf.path} ({result.pdf.pages} pages, {args.page_size.upper()})")
    if result.csv is not None:
        print(f"wrote {result.csv}")
    return 0


def _open_app(path: Path | None, catalog: Catalog) -> int:
    from rackplanner.gui.app import run_app

    return run_app(path, catalog)
