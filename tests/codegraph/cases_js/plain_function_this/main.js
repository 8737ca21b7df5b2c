class Menu {
  open() {
    const self = this;
    ['a', 'b'].forEach(function (item) {
      self.show(item);
    });
    return this;
  }

  show(item) {
    console.log(item);
  }
}

function standalone() {
  return this;
}

new Menu().open().show('c');
standalone();
