"""NetBox device types: imported as catalog parts, and parts written back as device types.

- ``vocabulary``: the library's names, read from its vendored schema, and the meaning of its plugs
- ``reading``: a file's facts; ``roles``: PDU, switch or other device, with reasons
- ``power``: cords and draw; ``pdu``: a PDU's electrics and outlet groups
- ``importer``: one file or a batch into a catalog folder; ``device_types``: parts back to NetBox
"""

from rackplanner.core.catalog.netbox.importer import (
    KINDS,
    ImportResult,
    PerFile,
    add_to_catalog,
    import_batch,
    import_device_type,
)
from rackplanner.core.catalog.netbox.reading import NetboxError

__all__ = ["KINDS", "ImportResult", "NetboxError", "PerFile", "add_to_catalog", "import_batch", "import_device_type"]
