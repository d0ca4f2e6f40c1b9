"""The Container Apps template's secrets and container environment as a deployment with given
parameters would produce them (used by check_consistency.py and check_config.py).

The template builds both lists with one expression form only:
    [concat(variables('a'), if(parameters('flag'), variables('b'), createArray()), …)]
so optional parts (the push API, the browser sign-in) are left out unless their bool parameter
is true. Anything else is refused, so the checks never judge a list they misread.
"""

import re

ARGUMENT = re.compile(
    r"variables\('(\w+)'\)|if\(parameters\('(\w+)'\), variables\('(\w+)'\), createArray\(\)\)"
)


def expand(template: dict, expression, parameters: dict) -> list:
    """The list `expression` yields, with `parameters` (name → value) for the bool flags;
    a flag not given takes its default. A literal list is returned as it is."""
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
            flag = match.group(2)
            value = parameters.get(flag, template["parameters"][flag].get("defaultValue"))
            if value:
                items += template["variables"][match.group(3)]
        position = match.end()
        if text.startswith(", ", position):
            position += 2
    return items


def every_part(template: dict, expression) -> list:
    """Every entry the expression can yield, whatever the flags."""
    flags = {name for name, spec in template["parameters"].items() if spec["type"] == "bool"}
    return expand(template, expression, {flag: True for flag in flags})
