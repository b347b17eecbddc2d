"""Failure budget of a training run: interruptions per day by component, the checkpoint
interval that loses least work (Young/Daly) and the goodput that leaves.

Rates per component-day come from Meta's Llama 3 405B pre-training (The Llama 3 Herd of
Models, 2024, Table 5; as reported by DatacenterDynamics): 419 unexpected interruptions in
54 days on 16,384 H100 GPUs in 2,048 eight-GPU hosts, of which faulty GPU 148, GPU HBM3 72,
GPU SRAM 19, GPU system processor 17, network switch and cable 35, CPU 2; the rest (software,
host maintenance, NIC, storage, power and others, 126) is counted per GPU as the run was.
Meta reported more than 90% effective training time.

Young (1974): the checkpoint interval that minimises lost work is sqrt(2 · δ · M) for a
checkpoint taking δ seconds and a mean time between interruptions M; Daly (2006) refines it to
sqrt(2 · δ · M) − δ when δ < M / 2. Each interruption then costs the restart plus, on average,
half an interval of work; each interval costs one checkpoint.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

LLAMA3_DAYS = 54
LLAMA3_GPUS = 16_384
LLAMA3_HOSTS = 2_048
# GPUs per host where the hardware does not say (the run's Grand Teton servers held eight).
GPUS_PER_HOST = 8
# Interruptions of the Llama 3 run by what failed, and what each scales with.
LLAMA3_CAUSES: dict[str, tuple[int, str]] = {
    "GPU (die, SRAM, system processor)": (148 + 19 + 17, "gpu"),
    "GPU HBM3 memory": (72, "gpu"),
    "network switch and cable": (35, "gpu"),
    "host CPU": (2, "host"),
    "other (software, maintenance, NIC, storage, power)": (419 - 148 - 72 - 19 - 17 - 35 - 2, "gpu"),
}
# Meta's checkpoint store for the run (Tectonic): 2 TB/s sustained (the Llama 3 report), that is
# about 1 GB/s for each of the run's hosts: a checkpoint is written at that rate per host.
LLAMA3_CHECKPOINT_TB_S = 2.0
CHECKPOINT_TB_S_PER_HOST = LLAMA3_CHECKPOINT_TB_S / LLAMA3_HOSTS
# A checkpoint holds BF16 weights, FP32 master weights and Adam's two FP32 moments.
CHECKPOINT_BYTES_PER_PARAM = 2 + 4 + 4 + 4
# Time to restart a job after an interruption: not in the sources read; a setting.
DEFAULT_RESTART_S = 600.0


class FailureBudget(BaseModel):
    gpus: int
    hosts: int
    interruptions_per_day: float
    by_cause: dict[str, float]
    mtbf_hours: float
    checkpoint_s: float
    storage_tb_s: float
    restart_s: float
    checkpoint_interval_s: float
    goodput: float


def failure_budget(
    gpus: int,
    hosts: int,
    checkpoint_bytes: float,
    *,
    storage_tb_s: float | None = None,
    restart_s: float = DEFAULT_RESTART_S,
) -> FailureBudget:
    """Interruptions, the Young/Daly checkpoint interval and goodput for ``gpus`` in ``hosts``
    writing ``checkpoint_bytes`` per checkpoint to storage of ``storage_tb_s`` (default: the
    Llama 3 run's write rate per host, times ``hosts``)."""
    storage_tb_s = storage_tb_s or CHECKPOINT_TB_S_PER_HOST * max(hosts, 1)
    count = {"gpu": gpus, "host": hosts}
    per_unit_day = {"gpu": LLAMA3_GPUS * LLAMA3_DAYS, "host": LLAMA3_HOSTS * LLAMA3_DAYS}
    by_cause = {cause: n * count[unit] / per_unit_day[unit] for cause, (n, unit) in LLAMA3_CAUSES.items()}
    per_day = sum(by_cause.values())
    mtbf_s = 86_400 / per_day if per_day else math.inf
    delta = checkpoint_bytes / (storage_tb_s * 1e12)
    interval = math.sqrt(2 * delta * mtbf_s)
    if delta < mtbf_s / 2:
        interval -= delta  # Daly's correction
    interval = max(interval, delta)
    # Lost share: a checkpoint per interval, and per interruption a restart and half an interval.
    lost = delta / (interval + delta) + (restart_s + interval / 2) / mtbf_s
    return FailureBudget(
        gpus=gpus,
        hosts=hosts,
        interruptions_per_day=per_day,
        by_cause=by_cause,
        mtbf_hours=mtbf_s / 3600,
        checkpoint_s=delta,
        storage_tb_s=storage_tb_s,
        restart_s=restart_s,
        checkpoint_interval_s=interval,
        goodput=max(0.0, 1 - lost),
    )


def format_failure_budget(budget: FailureBudget) -> str:
    """One sentence: interruptions, the checkpoint interval and the goodput they leave."""
    if budget.mtbf_hours == math.inf:
        return "No interruptions expected."
    every = (
        f"every {budget.mtbf_hours:,.1f} h"
        if budget.mtbf_hours < 24 * 30
        else f"every {budget.mtbf_hours / 24:,.0f} days"
    )
    return f"{budget.interruptions_per_day:,.3g} interruptions a day (one {every}); {format_checkpointing(budget)}"


def format_checkpointing(budget: FailureBudget) -> str:
    """ "checkpoint every 4.1 min (...); goodput 92.4% with a 10-minute restart."."""
    return (
        f"checkpoint every {budget.checkpoint_interval_s / 60:,.1f} min ({budget.checkpoint_s:,.1f} s each at "
        f"{budget.storage_tb_s * 1000:,.0f} GB/s, Young/Daly); goodput {budget.goodput:.1%} with a "
        f"{budget.restart_s / 60:g}-minute restart."
    )
