"""Build advice: from a model, a speed and a budget to ranked, checked builds.

- ``goal``: what the user asks (model, format, speed or users, budget, circuit or rack power)
- ``builds``: complete candidate machines from catalog parts
- ``search``: judge every candidate with the plan's own rules, keep the Pareto front
- ``text``: the ``rackplanner advise`` report and JSON
"""
