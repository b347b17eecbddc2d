"""Whether an NVLink bridge in the plan really joins its two cards.

The fit check reports these problems and the topology leaves out any bridge with an
error, so ``topo`` never prints an NVLink that ``check`` rejects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, NvlinkBridge
from rackplanner.core.findings import Severity
from rackplanner.core.plan.model import BridgeLink, Machine


@dataclass(frozen=True)
class BridgeProblem:
    severity: Severity
    code: str
    message: str
    slots: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)


def bridge_problems(link: BridgeLink, machine: Machine, board: Board, catalog: Catalog) -> list[BridgeProblem]:
    """Unmatched cards, a bridge that does not fit the card, a spacing that differs from the bridge's."""
    bridge = catalog.get_as(link.part, NvlinkBridge)
    cards = [machine.card_in(s) for s in link.slots]
    parts = [c.part for c in cards if c is not None]
    if bridge is None or len(parts) != 2:
        return []
    slots = list(link.slots)
    problems: list[BridgeProblem] = []
    if parts[0] != parts[1]:
        problems.append(
            BridgeProblem(
                "error",
                "bridge-mismatch",
                f"An NVLink bridge joins unmatched cards ({parts[0]} and {parts[1]}); both must be the same model.",
                slots,
                [*parts, bridge.id],
            )
        )
    unfit = [p for p in parts if p not in bridge.fits_gpus]
    if unfit:
        problems.append(
            BridgeProblem("error", "bridge-unfit", f"{bridge.model} does not fit {unfit[0]}.", slots, [bridge.id])
        )
    found = [board.slot(s) for s in link.slots]
    positions = [s.position for s in found if s is not None and s.position is not None]
    if len(positions) < 2:
        problems.append(
            BridgeProblem(
                "info",
                "bridge-spacing-unknown",
                f"The catalog does not give the spacing of {board.slot_label(link.slots[0])} and "
                f"{board.slot_label(link.slots[1])}: check that the {bridge.slot_spacing}-slot bridge spans them.",
                slots,
                [bridge.id],
            )
        )
    elif (apart := abs(positions[0] - positions[1])) != bridge.slot_spacing:
        problems.append(
            BridgeProblem(
                "error",
                "bridge-spacing",
                f"The cards sit {apart} slots apart; {bridge.model} spans {bridge.slot_spacing}.",
                slots,
                [bridge.id],
            )
        )
    return problems


def bridge_rejected(link: BridgeLink, machine: Machine, board: Board, catalog: Catalog) -> str | None:
    """Why the bridge does not join its cards (the first error), or None when it does."""
    errors = [p.message for p in bridge_problems(link, machine, board, catalog) if p.severity == "error"]
    return errors[0] if errors else None
