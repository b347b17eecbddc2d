"""What the hardware of an estimate costs to buy and draws at the wall, for cost of ownership."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from rackplanner.core.capacity.cost import CostSettings, Ownership, ownership
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu, Gpu, UnifiedSystem
from rackplanner.core.machine.power import machine_power
from rackplanner.core.plan.machine_price import machine_price
from rackplanner.core.plan.model import Machine, UserPrice


class Purchase(BaseModel):
    """The price and power an estimate's cost of ownership rests on, and what they cover."""

    covers: str
    price_usd: float | None
    unpriced: list[str] = []
    load_w: float | None
    idle_w: float | None = None
    gpus: int = 0
    gpu_architecture: str | None = None


def _quote(catalog: Catalog, part_id: str, count: int = 1) -> tuple[float | None, list[str]]:
    quote = catalog.price_of(part_id)
    return (None, [part_id]) if quote is None else (quote.price_usd * count, [])


def purchase_of_machine(
    catalog: Catalog, machine: Machine, user_prices: Mapping[str, UserPrice] | None = None
) -> Purchase:
    """A plan's machine: every part it names (at the plan's own prices first), and its wall power at full load."""
    price, unpriced = machine_price(catalog, machine, user_prices=user_prices)
    gpus = [g for g in (catalog.get_as(c.part, Gpu) for c in machine.cards) if g is not None]
    return Purchase(
        covers=f"machine {machine.name}: every part",
        price_usd=None if unpriced else price,
        unpriced=unpriced,
        load_w=machine_power(machine, catalog).wall_max_w,
        gpus=len(gpus),
        gpu_architecture=gpus[0].architecture if gpus else None,
    )


def purchase_of_parts(
    catalog: Catalog,
    *,
    gpu: str | None = None,
    count: int = 1,
    cpu: str | None = None,
    sockets: int = 1,
    system: str | None = None,
) -> Purchase:
    """GPUs, CPUs or a unified-memory machine named on the command line (the rest of a build not counted)."""
    if system is not None:
        unified = catalog.get_as(system, UnifiedSystem)
        price, unpriced = _quote(catalog, system)
        return Purchase(
            covers=f"{system}: the whole machine",
            price_usd=price,
            unpriced=unpriced,
            load_w=unified.max_power_w if unified else None,
            idle_w=unified.idle_power_w if unified else None,
        )
    if gpu is not None:
        part = catalog.get_as(gpu, Gpu)
        price, unpriced = _quote(catalog, gpu, count)
        return Purchase(
            covers=f"{count} x {gpu}: the GPUs only (no host, PSU or case)",
            price_usd=price,
            unpriced=unpriced,
            load_w=part.tdp_w * count if part and part.tdp_w else None,
            gpus=count,
            gpu_architecture=part.architecture if part else None,
        )
    assert cpu is not None
    part_cpu = catalog.get_as(cpu, Cpu)
    price, unpriced = _quote(catalog, cpu, sockets)
    return Purchase(
        covers=f"{sockets} x {cpu}: the CPUs only (no board, memory or case)",
        price_usd=price,
        unpriced=unpriced,
        load_w=part_cpu.tdp_w * sockets if part_cpu and part_cpu.tdp_w else None,
    )


def ownership_of(
    purchase: Purchase,
    decode_tokens_per_s: float | None,
    prefill_tokens_per_s: float | None,
    settings: CostSettings | None = None,
) -> Ownership | None:
    """Cost of ownership, or None when the price or the power is unknown."""
    if purchase.price_usd is None or purchase.load_w is None:
        return None
    return ownership(
        purchase.price_usd,
        purchase.load_w,
        idle_w=purchase.idle_w,
        decode_tokens_per_s=decode_tokens_per_s,
        prefill_tokens_per_s=prefill_tokens_per_s,
        gpus=purchase.gpus,
        gpu_architecture=purchase.gpu_architecture,
        settings=settings,
    )
