// The app test/computed runs: boolean checks (one field, two fields), a computed Text, a
// materialized sum and an evaluated count over a backlink, methods that read and write them.

export const shopWo = `class Person {
  first: Text
  last: Text
  full_name: Text = first + " " + last
  age: Int @check(value >= 0 and value <= 150)
  fn rename(f: Text) -> Text {
    update self set first = f
    return self.full_name
  }
  fn age_to(a: Int) {
    update self set age = a
  }
  service rest "/api/people" expose list, get, create, update, delete, rename, age_to, subscribe
}

class Booking {
  start: Int
  end: Int @check(self.end > self.start)
  service rest "/api/bookings" expose list, get, create, update
}

class Order {
  name: Text
  total: Int = sum(self.lines.amount) @materialized
  n: Int = count(self.lines)
  lines: backlink Line.order
  service rest "/api/orders" expose list, get, create, update, delete
}

class Line {
  order: ref Order
  amount: Int @check(> 0)
  service rest "/api/lines" expose list, get, create, update, delete
}
`;
