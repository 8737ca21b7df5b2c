module.exports = function (name) {
  return new Widget(name);
};

class Widget {
  constructor(name) {
    this.name = name;
  }

  show() {
    console.log(this.name);
  }
}

module.exports.Widget = Widget;
