def make_default():
    return 0


class Config:
    value = make_default()

    def reset(self):
        return make_default()


Config().reset()
