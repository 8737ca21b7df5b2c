export default class Store {
  constructor() {
    this.items = [];
  }

  add(x) {
    this.items.push(x);
    return this;
  }

  size() {
    return count(this.items);
  }
}

function count(xs) {
  return xs.length;
}
