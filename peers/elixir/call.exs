# call: a GenServer; a client process makes R GenServer.call(i) -> i + 1, then
# reports to main.

defmodule Bench.CallServer do
  use GenServer

  @impl true
  def init(:ok), do: {:ok, nil}

  @impl true
  def handle_call(i, _from, state), do: {:reply, i + 1, state}
end

defmodule Bench.Call do
  import Bench.Shared

  def variants, do: nil
  def params, do: [r: nil]

  def run(_, %{r: r}) do
    main = self()
    t0 = now()
    {:ok, server} = GenServer.start(Bench.CallServer, :ok)

    spawn(fn ->
      {trips, bad} = call_loop(server, 0, r, 0)
      send(main, {:call, trips, bad})
    end)

    receive do
      {:call, trips, bad} ->
        wall = now() - t0

        if trips != r or bad != 0,
          do: fail("call: #{trips} calls, #{bad} wrong replies, want #{r}")

        {wall, []}
    end
  end

  defp call_loop(_server, r, r, bad), do: {r, bad}

  defp call_loop(server, i, r, bad) do
    bad = if GenServer.call(server, i) == i + 1, do: bad, else: bad + 1
    call_loop(server, i + 1, r, bad)
  end
end
