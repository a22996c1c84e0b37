# copy: uniq, frequencies and a shuffle of N ints, R times: seq / par.
# `par` uses Task.async + Task.await_many, which copies the input into every
# task's heap (that is the point of this workload).

defmodule Bench.Copy do
  import Bench.Shared

  def variants, do: ["seq", "par"]
  def params, do: [n: nil, r: nil]

  def run(variant, %{n: n, r: r}) do
    data = random_ints(n)
    want = Enum.sum(data)
    t0 = now()

    facts =
      for _ <- 1..r//1 do
        case variant do
          "seq" ->
            u = Enum.uniq(data)
            f = Enum.frequencies(data)
            s = shuffle(data)
            copy_facts(u, f, s)

          "par" ->
            # Each closure captures `data`, so Task.async copies the whole
            # list into each task's heap, and the results are copied back.
            tasks = [
              Task.async(fn -> Enum.uniq(data) end),
              Task.async(fn -> Enum.frequencies(data) end),
              Task.async(fn -> shuffle(data) end)
            ]

            [u, f, s] = Task.await_many(tasks, :infinity)
            copy_facts(u, f, s)
        end
      end

    wall = now() - t0

    Enum.with_index(facts)
    |> Enum.each(fn {{nu, ftotal, slen, ssum}, i} ->
      if n >= 100_000 and nu != 1000,
        do: fail("copy #{variant}: rep #{i} uniq count #{nu}, want 1000")

      if ftotal != n,
        do: fail("copy #{variant}: rep #{i} frequencies sum to #{ftotal}, want #{n}")

      if slen != n or ssum != want,
        do:
          fail(
            "copy #{variant}: rep #{i} shuffle length #{slen} sum #{ssum}, want #{n} and #{want}"
          )
    end)

    {wall, []}
  end

  # Fisher-Yates on an :array (O(log n) get/set), driven by a fresh
  # xorshift64* seeded with 7: for i from n-1 down to 1, swap i with
  # j = uniform(0..=i).
  def shuffle(list) do
    arr = :array.from_list(list)
    :array.to_list(fisher_yates(arr, :array.size(arr) - 1, 7))
  end

  defp fisher_yates(arr, i, _s) when i <= 0, do: arr

  defp fisher_yates(arr, i, s) do
    {j, s} = uniform(0, i, s)
    vi = :array.get(i, arr)
    vj = :array.get(j, arr)
    arr = :array.set(j, vi, :array.set(i, vj, arr))
    fisher_yates(arr, i - 1, s)
  end

  defp copy_facts(u, f, s),
    do: {length(u), f |> Map.values() |> Enum.sum(), length(s), Enum.sum(s)}
end
