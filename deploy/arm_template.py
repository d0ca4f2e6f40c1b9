"""The Container Apps template's secrets and container environment as a deployment with given
parameters would produce them (used by check_consistency.py and check_config.py).

The template builds both lists with one expression form only:
    [concat(variables('a'), if(parameters('flag'), variables('b'), createArray()),
            if(not(empty(parameters('value'))), variables('c'), createArray()), …)]
so optional parts (the push API, the browser sign-in, a previous session secret) are left out
unless their bool parameter is true or their parameter is not empty. Anything else is refused,
so the checks never judge a list they misread.
"""

import re

ARGUMENT = re.compile(
    r"variables\('(\w+)'\)"
    r"|if\((?:parameters\('(\w+)'\)|not\(empty\(parameters\('(\w+)'\)\)\)), variables\('(\w+)'\), createArray\(\)\)"
)


def expand(template: dict, expression, parameters: dict) -> list:
    """The list `expression` yields, with `parameters` (name → value) for the conditions; a
    parameter not given takes its default. A literal list is returned as it is."""
    if isinstance(expression, list):
        return expression
    body = re.fullmatch(r"\[concat\((.*)\)\]", expression)
    if not body:
        raise ValueError(f"unsupported expression {expression!r}")
    items, position, text = [], 0, body.group(1)
    while position < len(text):
        match = ARGUMENT.match(text, position)
        if not match:
            raise ValueError(f"unsupported argument at {text[position:]!r}")
        if match.group(1):
            items += template["variables"][match.group(1)]
        else:
            condition = match.group(2) or match.group(3)
            if parameters.get(condition, template["parameters"][condition].get("defaultValue")):
                items += template["variables"][match.group(4)]
        position = match.end()
        if text.startswith(", ", position):
            position += 2
    return items


def conditions(template: dict, expression) -> list[str]:
    """The parameters that decide which parts of the expression are used."""
    if isinstance(expression, list):
        return []
    return [a or b for a, b in re.findall(r"if\((?:parameters\('(\w+)'\)|not\(empty\(parameters\('(\w+)'\)\)\)),", expression)]


def every_part(template: dict, expression) -> list:
    """Every entry the expression can yield, whatever the parameters."""
    return expand(template, expression, {name: True for name in conditions(template, expression)})
