class Queue {
  constructor() {
    this.items = [];
  }

  push(x) {
    this.items.push(x);
    return this;
  }

  drain(fn) {
    this.items.forEach(fn);
    this.items = [];
  }
}

module.exports = Queue;
