function Stack() {
  this.items = [];
}

Stack.prototype.push = function (x) {
  this.items.push(x);
  this.log('push');
  return this;
};

Stack.prototype.log = function (what) {
  console.log(what, this.items.length);
};

Stack.create = function () {
  return new Stack();
};

const s = Stack.create();
s.push(1).push(2);
