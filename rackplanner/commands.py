"""What each ``rackplanner`` subcommand does, once ``rackplanner.cli`` has parsed its arguments."""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.figures import key_figures
from rackplanner.core.catalog.loading import Catalog, user_catalog_dir
from rackplanner.core.catalog.netbox import ImportResult, PerFile, add_to_catalog, import_batch
from rackplanner.core.catalog.parts import PART_KINDS
from rackplanner.core.errors import InputError
from rackplanner.core.files import read_text, strict_json
from rackplanner.core.findings import summarize_findings
from rackplanner.core.machine.topology import format_topology
from rackplanner.core.machine.topology.compare import (
    MAX_MATRIX_BYTES,
    compare_topology,
    format_comparison,
    read_real_machine,
)
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.plan.summary import format_summary, summarize
from rackplanner.core.rack.power_text import format_power

# Exit status of a command whose input (a file, an option) was not usable, as rackplanner.cli says.
EXIT_BAD_INPUT = 2


def check(path: Path, catalog: Catalog, *, as_json: bool) -> int:
    plan = load_plan(path, catalog)
    summary = summarize(plan, catalog)
    analysis = analyse(plan, catalog).everything()
    findings = [f for machine_findings in analysis.machine_findings.values() for f in machine_findings]
    rack_findings = [f for report in analysis.racks.values() for f in report.findings]
    # The file reads either way; "valid" means no finding says the plan cannot be built.
    errors = sum(1 for f in findings if f.severity == "error") + sum(1 for f in rack_findings if f.severity == "error")
    if as_json:
        data = {"file": str(path), "valid": errors == 0, "readable": True, "errors": errors, **summary.model_dump()}
        data["findings"] = [f.model_dump() for f in findings]
        data["rack_findings"] = [f.model_dump() for f in rack_findings]
        print(strict_json(data))
    else:
        print(f"{path}: valid" if not errors else f"{path}: reads, but {errors} error{'s' * (errors > 1)} below")
        print(format_summary(summary))
        # Identical servers say the same thing once, naming every server it holds for.
        if findings:
            print("Findings:")
            for entry in summarize_findings((f.severity, f.code, f.message, f.machine) for f in findings):
                print(f"  {entry.severity:<7} [{entry.where_text}] {entry.message}")
        if rack_findings:
            print("Rack findings:")
            for entry in summarize_findings((f.severity, f.code, f.message, f.rack) for f in rack_findings):
                print(f"  {entry.severity:<7} [{entry.where_text}] {entry.message}")
    return 1 if errors else 0


def topo(
    path: Path,
    catalog: Catalog,
    machine_name: str | None,
    *,
    as_json: bool,
    compare: Path | None = None,
    lspci: Path | None = None,
) -> int:
    """Print each machine's topology; with ``compare``, the cells that differ from a real ``topo -m`` (exit 1).

    ``lspci`` is the machine's ``lspci -tv`` (else read from the ``compare`` file when it holds one too).
    """
    plan = load_plan(path, catalog)
    machines = [m for m in plan.machines if machine_name is None or machine_name in (m.id, m.name)]
    if not machines:
        known = ", ".join(m.id for m in plan.machines) or "none"
        raise InputError(f"{path}: no machine {machine_name!r} (machines: {known})")
    analysis = analyse(plan, catalog)
    topologies = [analysis.topology(m) for m in machines]
    if lspci is not None and compare is None:
        raise InputError(f"{lspci}: --lspci goes with --compare (the nvidia-smi topo -m of the same machine)")
    if compare is not None:
        if len(machines) != 1:
            raise InputError(f"{path}: --compare needs one machine; choose it with --machine (of {len(machines)})")
        text = read_text(compare, what="topology matrix", max_bytes=MAX_MATRIX_BYTES)
        tree_text = read_text(lspci, what="lspci -tv tree", max_bytes=MAX_MATRIX_BYTES) if lspci else None
        real, tree = read_real_machine(text, str(compare), tree_text)
        result = compare_topology(topologies[0], real, machines[0].host.numa_per_socket, tree)
        if as_json:
            print(strict_json(dataclasses.asdict(result) | {"matches": result.matches}))
        else:
            print(format_comparison(result, str(compare)), end="")
        return 0 if result.matches else 1
    if as_json:
        print(strict_json([t.model_dump(mode="json") for t in topologies]))
    else:
        print("\n".join(format_topology(t) for t in topologies), end="")
    return 0


def power(path: Path, catalog: Catalog, rack_name: str | None, *, as_json: bool, hall_kw: float | None = None) -> int:
    from rackplanner.core.rack.hall import format_hall, hall_power

    if hall_kw is not None and not 0 < hall_kw <= 1e7:  # also refuses nan and inf
        raise InputError(f"--hall-kw must be more than 0 and at most 10,000,000 (got {hall_kw})")
    plan = load_plan(path, catalog)
    racks = [r for r in plan.racks if rack_name is None or rack_name in (r.id, r.name)]
    if rack_name is not None and not racks:
        known = ", ".join(r.id for r in plan.racks) or "none"
        raise InputError(f"{path}: no rack {rack_name!r} (racks: {known})")
    analysis = analyse(plan, catalog)
    reports = [analysis.rack(r.id) for r in racks]
    fabrics = analysis.fabrics()
    hall = hall_power(plan, catalog, {r.id: analysis.rack_power(r.id) for r in plan.racks}, hall_kw)
    if as_json:
        data = {
            "file": str(path),
            "racks": [r.model_dump(mode="json") for r in reports],
            "fabrics": [f.model_dump(mode="json") for f in fabrics],
            "hall": hall.model_dump(mode="json"),
        }
        print(strict_json(data))
    else:
        text = format_power(catalog, reports, fabrics)
        if plan.racks:
            text += "\n".join(format_hall(hall)) + "\n"
        print(text, end="")
    return 0


def fabric(args: argparse.Namespace, catalog: Catalog) -> int:
    """Size and wire the plan's compute fabric; print it, and write the cable schedule when asked."""
    from rackplanner.core.rack.cluster_fabric import cluster_fabric
    from rackplanner.core.rack.fabric_text import cable_summary, format_fabric, write_schedule

    plan = load_plan(args.plan, catalog)
    try:
        found = cluster_fabric(
            plan, catalog, switch=args.switch, tiers=args.tiers,
            leaf_oversubscription=args.leaf_oversubscription, spine_oversubscription=args.spine_oversubscription,
            storage_switch=args.storage_switch, storage_oversubscription=args.storage_oversubscription,
            split=args.split,
        )  # fmt: skip
    except ValueError as exc:
        raise InputError(f"{args.plan}: {exc}") from exc
    if args.cables is not None:
        write_schedule(found, args.cables)
    if args.json:
        data = found.model_dump(mode="json", exclude={"links"})
        data["cables"] = {
            level: {kind: {"count": n, "total_m": m} for kind, (n, m) in kinds.items()}
            for level, kinds in cable_summary(found).items()
        }
        print(strict_json({"file": str(args.plan), **data}))
    else:
        print(format_fabric(found), end="")
        if args.cables is not None:
            print(f"Cable schedule: {len(found.links):,} cables written to {args.cables}")
    return 0


def import_netbox(args: argparse.Namespace, catalog: Catalog) -> int:
    """Import each file on its own; the exit status says whether any could not be imported."""
    results = import_batch(
        args.files,
        catalog=catalog,
        replace=args.replace,
        as_kind=_per_file(args.as_kind),
        voltage_v=_per_file(args.voltage),
        current_a=_per_file(args.current),
        wiring=_per_file(args.wiring),
    )
    folder = args.to or user_catalog_dir()
    written = [] if args.dry_run else add_to_catalog(results, folder)
    problems = [r for r in results if r.status != "imported"]
    if args.json:
        data = {
            "results": [r.model_dump() for r in results],
            "written": [str(p) for p in written],
            "imported": len(results) - len(problems),
            "failed": len(problems),
        }
        print(strict_json(data))
        for problem in problems:
            print(f"rackplanner: {problem.error}", file=sys.stderr)
        return EXIT_BAD_INPUT if problems else 0
    for result in results:
        if result.status != "imported" or result.part is None:
            continue
        part = result.part
        print(f"{result.path}: {result.kind} {part['id']} ({part['vendor']} {part['model']})")
        print(f"  as a {result.kind} because: {'; '.join(result.role_reasons)}")
        for warning in result.warnings:
            print(f"  note: {warning}")
    for path in written:
        print(f"wrote {path}")
    if args.dry_run:
        print("dry run: nothing written")
    print()
    print(_import_table(results))
    print(_import_summary(results))
    for problem in problems:
        print(f"rackplanner: {problem.error}", file=sys.stderr)
    return EXIT_BAD_INPUT if problems else 0


def _per_file(given: list[tuple[str | None, float | str]] | None) -> PerFile:
    """The figures an option was given: the last one without a file name for every file, the others by file."""
    values = given or []
    everyone = [value for name, value in values if name is None]
    return PerFile(everyone[-1] if everyone else None, tuple((n, v) for n, v in values if n is not None))


def _import_table(results: list[ImportResult]) -> str:
    """One line per file: what it became and its key figures, or what it needs."""
    rows = [("file", "result", "part", "figures")]
    for result in results:
        name = Path(result.path).name
        if result.status != "imported" or result.part is None:
            error = result.error or ""
            needs = re.search(r"give (--\w+)", error)
            why = textwrap.shorten(error.split(": ")[-1], 80, placeholder=" …")
            rows.append((name, result.status, "", f"needs {needs.group(1)}" if needs else why))
            continue
        rows.append((name, str(result.kind), result.part["id"], _import_figures(result.kind, result.part)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    )


def _import_figures(kind: str | None, part: dict[str, object]) -> str:
    if kind == "pdu":
        groups = part["outlet_groups"]
        assert isinstance(groups, list)
        outlets = sum(sum(g["outlets"].values()) for g in groups)
        wiring = "1-phase" if part["phases"] == 1 else f"3-phase {part['wiring']}"
        return f"{wiring} {part['voltage_v']:g} V {part['input_current_a']:g} A, {outlets} outlets"
    draw = part.get("power_max_w")
    watts = f"{draw:g} W" if isinstance(draw, (int, float)) else "draw unknown"
    if kind == "switch":
        ports = part["ports"]
        assert isinstance(ports, list)
        speeds = " + ".join(f"{g['count']}x{g['speed_gbps']:g}G" for g in ports)
        return f"{part['fabric']} {speeds}, {watts}"
    ports = part.get("power_ports")
    cords = len(ports) if isinstance(ports, list) else 0
    return f"{part['height_u']} U, {cords} cord{'s' if cords != 1 else ''}, {watts}"


def _import_summary(results: list[ImportResult]) -> str:
    counts = Counter(r.kind or "failed" if r.status == "imported" else r.status for r in results)
    listed = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    return f"{len(results)} file(s): {listed}"


def estimate(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.capacity.text import ESTIMATE_OPTIONS, estimate_command

    print(estimate_command(catalog, **{key: value for key, value in vars(args).items() if key in ESTIMATE_OPTIONS}))
    return 0


def advise(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.advise.text import ADVISE_OPTIONS, advise_command

    print(advise_command(catalog, **{key: value for key, value in vars(args).items() if key in ADVISE_OPTIONS}))
    return 0


def calibrate(args: argparse.Namespace, catalog: Catalog) -> int:
    import rackplanner.core.capacity as capacity_package
    from rackplanner.core.capacity.calibration_report import calibrate as run
    from rackplanner.core.capacity.calibration_report import check_writable, report, write_constants
    from rackplanner.core.capacity.check_measured import BenchMachine, check_report

    machine = BenchMachine(
        gpu=args.gpu,
        count=args.count,
        cpu=args.cpu,
        sockets=args.sockets,
        system=args.system,
        model=args.model,
        config=args.config,
        runtime=args.runtime,
    )
    if args.check:
        print(check_report(args.measured, catalog, machine=machine if machine.given() else None))
        return 0
    if machine.given():
        raise InputError("--gpu, --cpu, --system, --model and --config name llama-bench's run: they go with --check")
    if args.write:
        check_writable(args.measured)
    cal, cv = run(args.measured, catalog)
    print(report(cal, cv, args.measured))
    if args.write:
        target = write_constants(cal, Path(capacity_package.__file__).parent)
        print(f"wrote {target}")
    return 0


def capacity(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.capacity.text import capacity_command

    text = capacity_command(
        catalog, args.plan, machine=args.machine, runtime=args.runtime, context=args.context, as_json=args.json
    )
    print(text)
    return 0


def list_catalog(catalog: Catalog, kind: str | None, search: str | None, *, as_json: bool) -> int:
    kind_cls = PART_KINDS[kind] if kind else None
    if search:
        parts = catalog.search(search, kind_cls)
    else:
        parts = [p for p in catalog if kind_cls is None or isinstance(p, kind_cls)]
    parts.sort(key=lambda p: (p.kind, p.vendor.lower(), p.model.lower()))
    if as_json:
        rows = [{"kind": p.kind, **p.model_dump(mode="json")} for p in parts]
        print(strict_json(rows))
        return 0
    if not parts:
        wanted = f" {kind} part" if kind else " part"
        print(f"no{wanted} matches {search!r}" if search else f"no{wanted} in the catalog")
        return 0
    current = None
    for part in parts:
        if part.kind != current:
            current = part.kind
            print(f"\n{current}" if current != parts[0].kind else current)
        figures = "  ".join(f"{label} {text}" for label, text in key_figures(part))
        print(f"  {part.id:<28} {part.label:<44} {figures}")
    return 0


def export(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.report.export import export_report

    if not any((args.pdf, args.csv, args.netbox, args.svg, args.png)):
        raise InputError(
            "export: give at least one of --pdf OUT.pdf, --csv OUT.csv, --netbox DIR, --svg DIR, --png DIR"
        )
    plan = load_plan(args.plan, catalog)
    if args.prices is not None:
        plan = with_price_list(plan, args.prices, catalog)
    result = export_report(plan, catalog, pdf=args.pdf, csv=args.csv, page_size=args.page_size)
    data: dict[str, object] = {
        "pdf": str(result.pdf.path) if result.pdf else None,
        "pages": result.pdf.pages if result.pdf else None,
        "csv": str(result.csv) if result.csv else None,
    }
    lines = []
    if result.pdf is not None:
        lines.append(f"wrote {result.pdf.path} ({result.pdf.pages} pages, {args.page_size.upper()})")
    if result.csv is not None:
        lines.append(f"wrote {result.csv}")
    if args.netbox is not None:
        from rackplanner.report.netbox_export import export_netbox

        netbox = export_netbox(plan, catalog, args.netbox)
        data["netbox"] = {"folder": str(netbox.folder), "device_types": len(netbox.device_types), **netbox.tables}
        tables = ", ".join(f"{name} {rows}" for name, rows in netbox.tables.items() if rows)
        lines.append(f"wrote {netbox.folder}: {len(netbox.device_types)} device types; CSV rows: {tables}")
    for image_format in ("svg", "png"):
        folder = getattr(args, image_format)
        if folder is not None:
            from rackplanner.report.elevations import write_elevations

            paths = write_elevations(plan, catalog, folder, image_format)
            data[image_format] = [str(p) for p in paths]
            lines.append(f"wrote {len(paths)} rack elevation{'s' if len(paths) != 1 else ''} to {folder}")
    print(strict_json(data) if args.json else "\n".join(lines))
    return 0


def with_price_list(plan: Plan, path: Path, catalog: Catalog) -> Plan:
    """The plan with a user's price list applied; InputError naming rows the catalog cannot price."""
    from datetime import date

    from rackplanner.core.catalog.prices import read_price_csv
    from rackplanner.core.plan import edits
    from rackplanner.core.plan.edits.base import EditRefused

    quotes = read_price_csv(path, date.today())
    try:
        return edits.import_price_list(plan, quotes=quotes, name=str(path), catalog=catalog).plan
    except EditRefused as exc:
        raise InputError(str(exc)) from None


def import_netbox_export(args: argparse.Namespace, catalog: Catalog) -> int:
    from rackplanner.core.plan.files import save_plan
    from rackplanner.core.plan.from_netbox import plan_from_netbox_export

    plan = plan_from_netbox_export(args.folder, catalog)
    save_plan(plan, args.out)
    devices = sum(len(r.devices) for r in plan.racks)
    if args.json:
        print(strict_json({"plan": str(args.out), "racks": len(plan.racks), "devices": devices}))
    else:
        racks = f"{len(plan.racks)} rack{'s' if len(plan.racks) != 1 else ''}"
        print(f"wrote {args.out}: {racks}, {devices} rack devices, {len(plan.machines)} machines")
    return 0


def open_app(path: Path | None, catalog: Catalog) -> int:
    from rackplanner.gui.app import run_app

    return run_app(path, catalog)
