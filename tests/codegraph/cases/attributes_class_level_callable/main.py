def default_formatter(value):
    return str(value)


def loud_formatter(value):
    return str(value).upper()


class Report:
    formatter = None

    def render(self, value):
        return self.formatter(value)


Report.formatter = staticmethod(default_formatter)
Report().render(1)
