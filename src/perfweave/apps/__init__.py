"""perfweave's notebooks as applications, one module per way of serving them.

- :mod:`perfweave.apps.lab`: JupyterLab on a notebook (``perfweave lab``, ``make demo``);
- :mod:`perfweave.apps.app`: the notebook as a Voila dashboard (``perfweave app``);
- :mod:`perfweave.apps.export`: the notebook run and saved as one offline HTML page
  (``perfweave export``).

The command line (``perfweave.cli._apps``) only parses arguments and calls these.
"""
