"""Material's files are served as shipped (#52): every file of the
installed theme's assets/ is in the built site, byte for byte (what the
book needs of the theme's script and stylesheets at load it gets from its
own markup: overrides/partials/palette.html, page_speed.py)."""
from __future__ import annotations

from pathlib import Path

import material

THEME_ASSETS = Path(material.__file__).parent / "templates" / "assets"


def test_every_file_of_material_s_assets_is_served_as_installed(site):
    shipped = sorted(p.relative_to(THEME_ASSETS) for p in THEME_ASSETS.rglob("*") if p.is_file())
    assert len(shipped) > 20 and any(p.name.startswith("bundle.") for p in shipped)
    differ = [str(p) for p in shipped if not (site / "assets" / p).is_file()
              or (site / "assets" / p).read_bytes() != (THEME_ASSETS / p).read_bytes()]
    assert differ == []
