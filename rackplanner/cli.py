"""The ``rackplanner`` command: opens the app; subcommands work headless.

Every subcommand takes ``--json``. Whatever goes wrong ends with one line on stderr,
``rackplanner: FILE: field: what is wrong; what to do``, and an exit status: 2 for bad input
(a file, a field, an option), 1 when the environment fails (a file cannot be written, memory
runs out), 3 for a fault of rackplanner's own. ``--debug`` adds the traceback. Only the standard
library is imported until the arguments are parsed, so ``--help`` and a mistyped option answer
at once; the work lives in ``rackplanner.commands``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from rackplanner.core.kinds import PART_KIND_NAMES

if TYPE_CHECKING:
    from rackplanner.core.catalog.loading import Catalog

EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 1
EXIT_INTERNAL = 3

RUNTIME_HELP = (
    "llama.cpp or ik_llama.cpp (layer split), llama.cpp-row (-sm row), llama.cpp-row-cublas (-sm row, "
    "builds before 25 June 2024), vllm, sglang, tensorrt-llm, tgi (tensor parallel), vllm-v0 (vLLM before 0.8), "
    "vllm-pp, mlx"
)


# Whether the command line being parsed asks for --json (argument errors come before args exist).
_JSON_ASKED = False


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line, like every other error, pointing at the help."""

    def error(self, message: str) -> NoReturn:
        text = f"{one_line(message)}; see {self.prog} --help"
        # A caller that asked for JSON reads stdout: the error comes there too, as every other one does.
        if _JSON_ASKED:
            print(json.dumps({"error": text, "exit_status": EXIT_BAD_INPUT}))
        print(f"{self.prog}: {text}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def finite(text: str) -> float:
    """An option's number: finite (``nan`` and ``inf`` are words, not figures)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def for_file(choices: tuple[str, ...] | None, most: float = 0.0) -> Callable[[str], tuple[str | None, float | str]]:
    """An option given for every file (``32``) or for one (``AP8881.yaml=32``): (file or None, value)."""

    def parse(text: str) -> tuple[str | None, float | str]:
        name, _, value = text.rpartition("=")
        if choices is not None:
            if value not in choices:
                raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(choices)}")
            return name or None, value
        number = finite(value)
        if not 0 < number <= most:
            raise argparse.ArgumentTypeError(f"{value!r} is not a figure from 0 to {most:g}")
        return name or None, number

    return parse


def one_line(text: str) -> str:
    """A message as one line: control characters (a newline in a file name) shown escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


COMMANDS = (
    "open",
    "check",
    "catalog",
    "topo",
    "power",
    "fabric",
    "import-netbox",
    "import-netbox-export",
    "estimate",
    "advise",
    "calibrate",
    "capacity",
    "export",
)


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--catalog",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a folder of your own catalog YAML files (entries override by id; repeatable)",
    )
    common.add_argument("--debug", action="store_true", help="on an error, print the traceback too")
    parser = _Parser(
        prog="rackplanner",
        description="Plan ML hardware: fit, PCIe topology, power, capacity, bill of materials. "
        "With no command, opens the app.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    app = sub.add_parser("open", parents=[common], help="open the app (the default command)")
    app.add_argument("plan", nargs="?", type=Path, help="plan file (default: the last one)")

    check = sub.add_parser(
        "check", parents=[common], help="validate a plan and print what it holds (exit 1 when a finding is an error)"
    )
    check.add_argument("plan", type=Path)
    check.add_argument("--json", action="store_true", help="machine-readable output")

    catalog = sub.add_parser("catalog", parents=[common], help="list parts with their key figures")
    catalog.add_argument("kind", nargs="?", choices=sorted(PART_KIND_NAMES), help="only this kind")
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
    topo.add_argument(
        "--compare",
        type=Path,
        metavar="REAL.txt",
        help="a real `nvidia-smi topo -m` printout: list the cells that differ and their likely cause (exit 1)",
    )
    topo.add_argument(
        "--lspci",
        type=Path,
        metavar="TREE.txt",
        help="the same machine's `lspci -tv` (also read from the --compare file when it holds both): "
        "numbers GPUs by PCI address and settles which slots share a host bridge",
    )

    power = sub.add_parser(
        "power",
        parents=[common],
        help="per rack and PDU: each line's and breaker's load against its derated limit, normal and failover",
    )
    power.add_argument("plan", type=Path)
    power.add_argument("--rack", metavar="ID", help="only this rack (id or name)")
    power.add_argument(
        "--hall-kw", type=float, metavar="K", help="the hall's power budget: row and hall totals are checked against it"
    )
    power.add_argument("--json", action="store_true", help="machine-readable output")

    fabric = sub.add_parser(
        "fabric",
        parents=[common],
        help="the compute fabric as a rail-optimized fat tree: switches per tier, ports, cables, cable schedule",
    )
    fabric.add_argument("plan", type=Path)
    fabric.add_argument("--switch", metavar="ID", help="switch model (default: the plan's most common InfiniBand one)")
    fabric.add_argument("--tiers", type=int, choices=(1, 2, 3), help="tiers (default: the fewest that hold the ports)")
    fabric.add_argument(
        "--split", type=int, default=1, metavar="N", help="breakout: each switch port as N ports of 1/N its speed"
    )
    fabric.add_argument("--leaf-oversubscription", type=float, default=1.0, metavar="R", help="down:up (default 1)")
    fabric.add_argument("--spine-oversubscription", type=float, default=1.0, metavar="R", help="down:up (default 1)")
    fabric.add_argument("--storage-switch", metavar="ID", help="switch model of the storage and in-band networks")
    fabric.add_argument(
        "--storage-oversubscription", type=float, default=1.0, metavar="R", help="their leaves' down:up (default 1)"
    )
    fabric.add_argument("--cables", type=Path, metavar="CSV", help="write the cable schedule (one row per cable)")
    fabric.add_argument("--json", action="store_true", help="machine-readable output (without the schedule)")

    netbox = sub.add_parser(
        "import-netbox",
        parents=[common],
        help="add NetBox community device types (YAML) to your catalog as rack devices, switches or PDUs; "
        "each file reports on its own and the rest go on",
    )
    netbox.add_argument("files", nargs="+", type=Path, metavar="FILE")
    netbox.add_argument("--to", type=Path, metavar="DIR", help="catalog folder to add them to (default: yours)")
    per_file = " (repeatable; FILE=VALUE gives it for one file)"
    netbox.add_argument(
        "--as",
        dest="as_kind",
        action="append",
        type=for_file(("rack-device", "switch", "pdu")),
        metavar="KIND",
        help="import as rack-device, switch or pdu" + per_file,
    )
    for flag, choices, most, metavar, meaning in (
        ("--voltage", None, 1000, "V", "a PDU's input voltage, when its plug does not say"),
        ("--current", None, 1000, "A", "a PDU's input current, when its plug does not say"),
        (
            "--wiring",
            ("single", "wye", "delta"),
            0.0,
            "WIRING",
            "a PDU's wiring (single, wye, delta), when its plug does not say",
        ),
    ):
        netbox.add_argument(
            flag, action="append", type=for_file(choices, most=most), metavar=metavar, help=meaning + per_file
        )
    netbox.add_argument(
        "--replace", action="store_true", help="replace a catalog part whose id an imported file has (else refused)"
    )
    netbox.add_argument("--dry-run", action="store_true", help="check and print, write nothing")
    netbox.add_argument("--json", action="store_true", help="machine-readable output")

    back = sub.add_parser(
        "import-netbox-export",
        parents=[common],
        help="read back a folder 'export --netbox' wrote (after NetBox, too) as a plan file",
    )
    back.add_argument("folder", type=Path, metavar="DIR")
    back.add_argument("--out", type=Path, required=True, metavar="PLAN.json", help="the plan file to write")
    back.add_argument("--json", action="store_true", help="machine-readable output")

    estimate = sub.add_parser(
        "estimate",
        parents=[common],
        help="does a model fit, how fast it decodes and prefills, what the hardware can train",
    )
    estimate.add_argument("--gpu", metavar="ID", help="catalog GPU (with --count)")
    estimate.add_argument("--count", type=int, default=1, metavar="N", help="number of GPUs (default 1)")
    estimate.add_argument("--cpu", metavar="ID", help="catalog CPU for CPU inference (with --sockets)")
    estimate.add_argument("--sockets", type=int, default=1, metavar="N", help="CPU sockets (default 1)")
    estimate.add_argument(
        "--ram-gb", type=float, metavar="GB", help="the machine's RAM with --cpu (default: the most the CPU takes)"
    )
    estimate.add_argument(
        "--system", metavar="ID", help="catalog unified-memory machine (Mac Studio, Strix Halo, DGX Spark)"
    )
    estimate.add_argument("--plan", type=Path, metavar="PLAN", help="a plan file: estimate on one of its machines")
    estimate.add_argument("--machine", metavar="NAME", help="machine id or name in --plan")
    estimate.add_argument("--model", metavar="ID", help="catalog LLM")
    estimate.add_argument("--config", type=Path, metavar="JSON", help="a Hugging Face config.json instead of --model")
    estimate.add_argument(
        "--hf", metavar="ORG/NAME", help="a Hugging Face model id: its config.json, fetched once into the Hub cache"
    )
    estimate.add_argument(
        "--format", metavar="FMT", help="weight format (default: as a pre-quantized config ships, else q4_k_m)"
    )
    estimate.add_argument(
        "--weights-gib",
        type=float,
        metavar="GIB",
        help="your weights file's real size (all parts of a dynamic GGUF, e.g. UD-Q2_K_XL): "
        "sized to it, with --format's mix of tensor sizes",
    )
    estimate.add_argument(
        "--gpu-layers", type=int, metavar="N", help="llama.cpp -ngl: layers in VRAM, the rest in system RAM"
    )
    estimate.add_argument("--batch", type=int, default=1, metavar="B", help="sequences decoded together")
    estimate.add_argument("--context", type=int, default=4096, metavar="C", help="tokens per sequence")
    estimate.add_argument(
        "--runtime",
        default="llama.cpp",
        help=RUNTIME_HELP,
    )
    estimate.add_argument("--kv-cache", default="fp16", metavar="PREC", help="KV cache precision (default fp16)")
    estimate.add_argument("--prompt", type=int, metavar="N", help="prompt tokens for prefill and time to first token")
    estimate.add_argument(
        "--depth",
        type=int,
        metavar="D",
        default=0,
        help="tokens already in the cache when the prompt comes (a chat's history; llama-bench -d); default 0",
    )
    estimate.add_argument(
        "--ubatch",
        type=int,
        metavar="N",
        help="llama.cpp -ub: prompt tokens one pass takes (default 512); larger passes read the weights fewer times",
    )
    estimate.add_argument("--json", action="store_true", help="machine-readable output")

    _add_advise(sub, common)

    calibrate = sub.add_parser(
        "calibrate",
        parents=[common],
        help="fit the capacity constants to published measurements and report the held-out error",
    )
    calibrate.add_argument(
        "measured", type=Path, metavar="MEASURED.csv", help="measurement rows (tests/data/measured.csv)"
    )
    calibrate_mode = calibrate.add_mutually_exclusive_group()
    calibrate_mode.add_argument("--write", action="store_true", help="store the fitted constants in the package")
    calibrate_mode.add_argument(
        "--check",
        action="store_true",
        help="fit nothing: estimate each row with the shipped constants and say whether the stated error band holds",
    )
    bench = calibrate.add_argument_group(
        "llama-bench output (with --check)",
        "llama-bench's table, -o csv, -o json or -o jsonl, checked on the machine it ran on",
    )
    bench.add_argument("--gpu", metavar="ID", help="catalog GPU the runs used (with --count)")
    bench.add_argument("--count", type=int, default=1, metavar="N", help="number of GPUs (default 1)")
    bench.add_argument("--cpu", metavar="ID", help="catalog CPU of a CPU-only run (with --sockets)")
    bench.add_argument("--sockets", type=int, default=1, metavar="N", help="CPU sockets (default 1)")
    bench.add_argument("--system", metavar="ID", help="catalog unified-memory machine")
    bench.add_argument("--model", metavar="ID", help="catalog LLM (default: the one of llama-bench's parameter count)")
    bench.add_argument("--config", type=Path, metavar="JSON", help="a Hugging Face config.json instead of --model")
    bench.add_argument("--runtime", default="llama.cpp", help="llama.cpp (default) or ik_llama.cpp")

    capacity = sub.add_parser(
        "capacity", parents=[common], help="which catalog models and formats fit a plan's machine, with speeds"
    )
    capacity.add_argument("plan", type=Path)
    capacity.add_argument("--machine", metavar="NAME", help="machine id or name (needed when the plan has several)")
    capacity.add_argument("--context", type=int, default=4096, metavar="C", help="tokens per sequence")
    capacity.add_argument(
        "--runtime",
        default="llama.cpp",
        help=RUNTIME_HELP,
    )
    capacity.add_argument("--json", action="store_true", help="machine-readable output")

    export = sub.add_parser(
        "export",
        parents=[common],
        help="the PDF report and BOM CSV for a vendor, a NetBox import set, rack elevations as SVG or PNG",
    )
    export.add_argument("plan", type=Path)
    export.add_argument("--pdf", type=Path, metavar="OUT.pdf", help="write the PDF report here")
    export.add_argument("--csv", type=Path, metavar="OUT.csv", help="write the BOM lines as CSV here")
    export.add_argument(
        "--netbox", type=Path, metavar="DIR", help="write NetBox device types (YAML) and bulk-import CSV files here"
    )
    export.add_argument("--svg", type=Path, metavar="DIR", help="write each rack's elevation, front and rear, as SVG")
    export.add_argument("--png", type=Path, metavar="DIR", help="write each rack's elevation, front and rear, as PNG")
    export.add_argument(
        "--prices",
        type=Path,
        metavar="FILE.csv",
        help="your price list (columns part, price, currency, date, note): its prices replace the catalog's "
        "in this export (File → Import Price List… keeps them in the plan)",
    )
    export.add_argument("--page-size", choices=("a4", "letter"), default="a4", help="PDF page size (default a4)")
    export.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # "rackplanner [--catalog DIR] [PLAN]" opens the app: supply the implicit command.
    if not args_list or args_list[0] not in (*COMMANDS, "-h", "--help"):
        args_list = ["open", *args_list]
    global _JSON_ASKED
    _JSON_ASKED = "--json" in args_list
    args = build_parser().parse_args(args_list)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("rackplanner: interrupted", file=sys.stderr)
        return 130


def _add_advise(sub: Any, common: argparse.ArgumentParser) -> None:
    advise = sub.add_parser(
        "advise",
        parents=[common],
        help="ranked, checked builds for a model, a speed, a budget and a circuit or rack",
    )
    advise.add_argument("--model", metavar="ID", help="catalog LLM")
    advise.add_argument("--config", type=Path, metavar="JSON", help="a Hugging Face config.json instead of --model")
    advise.add_argument("--hf", metavar="ORG/NAME", help="a Hugging Face model id (config fetched into the Hub cache)")
    advise.add_argument("--format", metavar="FMT", help="weight format (default: as shipped, else q4_k_m)")
    advise.add_argument("--context", type=int, default=4096, metavar="C", help="tokens per sequence (default 4096)")
    advise.add_argument("--tok-s", type=float, metavar="X", help="decode speed one user needs (tokens/s)")
    advise.add_argument("--users", type=int, metavar="N", help="concurrent users to serve")
    advise.add_argument("--tok-s-per-user", type=float, metavar="X", help="each user's speed (default 20)")
    advise.add_argument("--budget", type=float, metavar="USD", help="the most the build may cost")
    advise.add_argument("--circuit", metavar="120V/15A", help="the wall circuit it runs on (80%% continuous)")
    advise.add_argument("--rack-kw", type=float, metavar="K", help="one rack's power budget in kW")
    advise.add_argument("--runtime", help="llama.cpp, vllm, sglang, tensorrt-llm, mlx (default: by the goal)")
    advise.add_argument("--gpus", type=int, metavar="N", help="only builds with exactly N GPUs")
    advise.add_argument(
        "--kind",
        action="append",
        choices=("workstation", "server", "system"),
        help="only this kind of machine (repeatable): a tower or open frame, a rack server, a unified-memory system",
    )
    used = advise.add_mutually_exclusive_group()
    used.add_argument("--new-only", action="store_true", help="new parts' prices only")
    used.add_argument("--allow-used", action="store_true", help="used-market prices too (the default)")
    advise.add_argument("--usd-per-kwh", type=float, metavar="P", help="electricity price (default: US average)")
    advise.add_argument("--utilisation", type=float, metavar="F", help="share of hours at load (default 0.5)")
    advise.add_argument("--years", type=float, metavar="Y", help="amortisation years (default 3)")
    advise.add_argument(
        "--cloud-usd-per-gpu-hour", type=float, metavar="P", help="rental price to break even against (default $2)"
    )
    advise.add_argument("--save", type=Path, metavar="PLAN", help="write a build as a plan file (with --pick)")
    advise.add_argument("--pick", type=int, default=1, metavar="N", help="which build --save writes (default 1)")
    advise.add_argument("--json", action="store_true", help="machine-readable output")


def _run(args: argparse.Namespace) -> int:
    from rackplanner import commands
    from rackplanner.core.catalog.loading import load_catalog
    from rackplanner.core.errors import InputError, OutputError

    debug = getattr(args, "debug", False)
    try:
        catalog = load_catalog(args.catalog)
        # Entries of users' folders that could not be used were skipped; say which, go on.
        for problem in catalog.problems:
            print(f"rackplanner: warning: {one_line(problem)}", file=sys.stderr)
        return _dispatch(args, catalog, commands)
    except InputError as exc:
        return _fail(args, str(exc), EXIT_BAD_INPUT, debug)
    except OutputError as exc:
        return _fail(args, str(exc), EXIT_ENVIRONMENT, debug)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ENVIRONMENT
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(args, f"{where}{exc.strerror or exc}", EXIT_ENVIRONMENT, debug)
    except MemoryError:
        return _fail(args, "out of memory; is the input far larger than a plan or catalog can be?", 1, debug)
    except RecursionError:
        return _fail(args, "the input is nested too deeply to work with", EXIT_BAD_INPUT, debug)
    except Exception as exc:
        message = f"internal error ({type(exc).__name__}: {exc}); please report it with the input that caused it"
        return _fail(args, message, EXIT_INTERNAL, debug)


def _fail(args: argparse.Namespace, message: str, status: int, debug: bool) -> int:
    if debug:
        import traceback

        traceback.print_exc()
    text = one_line(message)
    if getattr(args, "json", False):
        print(json.dumps({"error": text, "exit_status": status}))
    print(f"rackplanner: {text}", file=sys.stderr)
    return status


def _dispatch(args: argparse.Namespace, catalog: Catalog, commands: ModuleType) -> int:
    if args.command == "check":
        return int(commands.check(args.plan, catalog, as_json=args.json))
    if args.command == "topo":
        return int(
            commands.topo(args.plan, catalog, args.machine, as_json=args.json, compare=args.compare, lspci=args.lspci)
        )
    if args.command == "power":
        return int(commands.power(args.plan, catalog, args.rack, as_json=args.json, hall_kw=args.hall_kw))
    if args.command == "fabric":
        return int(commands.fabric(args, catalog))
    if args.command == "import-netbox":
        return int(commands.import_netbox(args, catalog))
    if args.command == "import-netbox-export":
        return int(commands.import_netbox_export(args, catalog))
    if args.command == "estimate":
        return int(commands.estimate(args, catalog))
    if args.command == "advise":
        return int(commands.advise(args, catalog))
    if args.command == "calibrate":
        return int(commands.calibrate(args, catalog))
    if args.command == "export":
        return int(commands.export(args, catalog))
    if args.command == "capacity":
        return int(commands.capacity(args, catalog))
    if args.command == "catalog":
        return int(commands.list_catalog(catalog, args.kind, args.search, as_json=args.json))
    return int(commands.open_app(args.plan, catalog))
