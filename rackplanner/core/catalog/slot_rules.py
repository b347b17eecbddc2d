"""Which card goes into which kind of slot: a PCIe card in a PCIe slot, an M.2 drive in an M.2 socket,
an SXM module in an SXM bay. Edits refuse the rest; a plan file that holds one gets an error finding."""

from __future__ import annotations

import re

from rackplanner.core.catalog.parts import Drive, Gpu, Nic, Part, Slot


def card_slot_problem(part: Part, slot: Slot) -> str | None:
    """Why ``part`` cannot go into ``slot`` (None when it can)."""
    if not isinstance(part, Gpu | Nic | Drive):
        return f"{part.model} is not a card, drive or GPU module"
    if slot.kind == "m2":
        if isinstance(part, Drive) and part.form_factor.startswith("m.2"):
            return None
        return f"{slot.label} is an M.2 socket; {part.model} does not go there"
    if slot.kind == "sxm":
        if not (isinstance(part, Gpu) and part.form_factor == "sxm"):
            return f"{slot.label} is an SXM bay; it takes SXM GPU modules only, not {part.model}"
        module, bay = sxm_generation_of_gpu(part), sxm_generation_of_bay(slot)
        if module is not None and bay is not None and module != bay:
            return f"{part.model} is an {module} module; {slot.label} is an {bay} bay"
        return None
    if isinstance(part, Drive) and part.form_factor != "aic":
        form = part.form_factor.upper().replace("IN", " in")
        article = "an" if form[0] in "AEM" else "a"  # an M.2, an E1.S; a U.2, a 2.5 in
        return f"{part.model} is {article} {form} drive, not a PCIe card"
    if isinstance(part, Gpu) and part.form_factor != "pcie":
        return f"{part.model} is an {part.form_factor.upper()} module, not a PCIe card"
    return None


# The SXM socket generation of each architecture's baseboard modules (NVIDIA: P100 and V100
# SXM2, A100 SXM4, H100/H200 SXM5, as their product names and the DGX-1/DGX A100/HGX H100
# baseboards say). Later and superchip modules are left unknown.
_SXM_BY_ARCHITECTURE = {"Pascal": "SXM2", "Volta": "SXM2", "Ampere": "SXM4", "Hopper": "SXM5"}
_SXM = re.compile(r"\bSXM(\d)\b", re.IGNORECASE)


def sxm_generation_of_gpu(gpu: Gpu) -> str | None:
    """ "SXM5" for an H100 SXM5 module: from its name, else its architecture (None: unknown)."""
    named = _SXM.search(gpu.model)
    if named:
        return f"SXM{named.group(1)}"
    if "superchip" in gpu.model.lower() or "GB200" in gpu.model:
        return None
    arch = re.sub(r"\s*\(.*\)", "", gpu.architecture or "").strip()
    return _SXM_BY_ARCHITECTURE.get(arch)


def sxm_generation_of_bay(slot: Slot) -> str | None:
    """ "SXM2" for a bay labelled "SXM2 GPU 0" (None: the label does not say)."""
    named = _SXM.search(slot.label or "")
    return f"SXM{named.group(1)}" if named else None
