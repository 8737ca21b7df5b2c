function Point(x, y) {
  this.x = x;
  this.y = y;
}

Point.prototype = {
  norm() {
    return Math.sqrt(this.dot(this));
  },
  dot(p) {
    return this.x * p.x + this.y * p.y;
  },
};

const p = new Point(3, 4);
console.log(p.norm());
