def clicked():
    return "clicked"


class Button:
    def __init__(self, label, on_click=None):
        self.label = label
        self.on_click = on_click

    def click(self):
        return self.on_click()


Button("ok", on_click=clicked).click()
