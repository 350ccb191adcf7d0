package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/simulate"
)

const agentInstruction = `You are a travel planner. Use search_flights and search_hotels to find options,
book only what the traveller confirms, and send the itinerary by email when asked.
Quote prices and confirmation codes exactly as the tools return them.`

type flightQuery struct {
	From string `json:"from" jsonschema:"description=departure airport code, e.g. AMS"`
	To   string `json:"to" jsonschema:"description=arrival airport code, e.g. LIS"`
	Date string `json:"date" jsonschema:"description=departure date, YYYY-MM-DD"`
}

type hotelQuery struct {
	City   string `json:"city" jsonschema:"description=city name"`
	Area   string `json:"area,omitempty" jsonschema:"description=preferred neighbourhood"`
	Nights int    `json:"nights" jsonschema:"description=number of nights"`
}

type booking struct {
	Flight string `json:"flight" jsonschema:"description=flight number to book"`
	Hotel  string `json:"hotel" jsonschema:"description=hotel name to book"`
}

type itinerary struct {
	Email string `json:"email" jsonschema:"description=where to send the itinerary"`
}

// travelTools are the agent's tools. They answer from fixed data, so runs
// are repeatable.
func travelTools() ([]tool.BaseTool, error) {
	flights, err := utils.InferTool("search_flights", "Search flights between two airports on a date.", searchFlights)
	if err != nil {
		return nil, err
	}
	hotels, err := utils.InferTool("search_hotels", "Search hotels in a city.", searchHotels)
	if err != nil {
		return nil, err
	}
	book, err := utils.InferTool("book", "Book a flight and a hotel together.", bookTrip)
	if err != nil {
		return nil, err
	}
	send, err := utils.InferTool("send_itinerary", "Email the booked itinerary.", sendItinerary)
	if err != nil {
		return nil, err
	}
	return []tool.BaseTool{flights, hotels, book, send}, nil
}

// searchFlights answers search_flights with two fixed flights.
func searchFlights(_ context.Context, q flightQuery) (string, error) {
	return fmt.Sprintf("%s→%s %s: TP663 09:40 €142; KL1693 14:05 €171", q.From, q.To, q.Date), nil
}

// searchHotels answers search_hotels with two fixed hotels.
func searchHotels(_ context.Context, q hotelQuery) (string, error) {
	return fmt.Sprintf("%s, %d nights: Baixa Sol €95/night; Alfama Rio €120/night", q.City, q.Nights), nil
}

// bookTrip books a flight and a hotel, both required.
func bookTrip(_ context.Context, b booking) (string, error) {
	if b.Flight == "" || b.Hotel == "" {
		return "error: both flight and hotel are required", nil
	}
	return fmt.Sprintf("booked %s and %s, confirmation LX-4821", b.Flight, b.Hotel), nil
}

// sendItinerary answers send_itinerary with the address it sent to.
func sendItinerary(_ context.Context, it itinerary) (string, error) {
	return "itinerary LX-4821 sent to " + it.Email, nil
}

// answered reports whether the agent got a result from the named tool.
func answered(name string) simulate.CheckFunc {
	return func(_ context.Context, s simulate.Progress) (bool, error) {
		for _, t := range s.Traces {
			for _, m := range t.Agent {
				if m.ToolName == name && !strings.HasPrefix(m.Content, "error") {
					return true, nil
				}
			}
		}
		return false, nil
	}
}

// travelScenario is a four-step plan: flights first, then hotels (chosen
// by the ranker), then booking, gated on both and on a quoted flight, then
// the itinerary. The goals check what the agent did, not what the user says.
func travelScenario() *simulate.Scenario {
	return &simulate.Scenario{
		Name:           "lisbon-trip",
		ConversationID: "lisbon-trip",
		Goal:           "Plan and book a 3-night trip from Amsterdam to Lisbon on 12 May, flight and hotel, and get the itinerary by email.",
		Persona: simulate.Persona{
			Name:        "Ana",
			Description: "a nurse with little time who writes short, friendly messages",
			Guardrails:  []string{"never share card numbers or passwords", "give the email ana@example.com only when asked to send something"},
		},
		Graph: &simulate.Graph{
			Start:     "flights",
			Terminals: []string{"itinerary"},
			Steps: []simulate.Step{
				{ID: "flights", Instruction: "Ask for flights from Amsterdam (AMS) to Lisbon (LIS) on 2025-05-12.", Satisfied: answered("search_flights")},
				{ID: "hotels", Instruction: "Ask for a hotel in central Lisbon for 3 nights.", Hints: []string{"Baixa is a good area"}},
				{
					ID: "book", Instruction: "Ask to book the cheapest flight and the cheapest hotel.",
					Preconditions: []simulate.Precondition{
						simulate.After("flights"), simulate.After("hotels"),
						simulate.When("a flight was quoted", answered("search_flights")),
					},
					MaxAttempts: 2,
					Satisfied:   answered("book"),
				},
				{ID: "itinerary", Instruction: "Ask for the itinerary by email.", Preconditions: []simulate.Precondition{simulate.After("book")}},
			},
		},
		MaxTurns: 8,
		Goals: []simulate.Goal{
			simulate.ToolCalledWith("book", func(c simulate.ToolCall) bool {
				var b booking
				return c.Args(&b) == nil && b.Flight == "TP663" && b.Hotel == "Baixa Sol"
			}),
			simulate.ToolCalled("send_itinerary"),
		},
		Metadata: map[string]any{"example": "travel-planner"},
	}
}

// scriptedModels play both sides offline: the agent's model, the user and
// the ranker, each from a fixed script.
func scriptedModels() *models {
	return &models{
		name: "scripted",
		agent: scripted.New(
			scripted.Call("search_flights", `{"from":"AMS","to":"LIS","date":"2025-05-12"}`),
			scripted.Reply("TP663 leaves at 09:40 for €142; KL1693 at 14:05 for €171. Shall I look for a hotel?"),
			scripted.Call("search_hotels", `{"city":"Lisbon","area":"Baixa","nights":3}`),
			scripted.Reply("Baixa Sol is €95 a night, Alfama Rio €120. Which one?"),
			scripted.Call("book", `{"flight":"TP663","hotel":"Baixa Sol"}`),
			scripted.Reply("Done: TP663 and Baixa Sol are booked, confirmation LX-4821."),
			scripted.Call("send_itinerary", `{"email":"ana@example.com"}`),
			scripted.Reply("Sent the itinerary LX-4821 to ana@example.com. Have a great trip!"),
		),
		user: scripted.New(
			scripted.Reply("Hi! Any flights from Amsterdam to Lisbon on 12 May?"),
			scripted.Reply("Great. I also need a hotel in central Lisbon for 3 nights, Baixa if possible."),
			scripted.Reply("Please book TP663 and Baixa Sol."),
			scripted.Reply("Thanks! Can you email me the itinerary? ana@example.com"),
		),
		ranker: simulate.NewRanker(scripted.New(
			scripted.Reply("```json\n{\"scores\":[{\"stepId\":\"hotels\",\"score\":0.92,\"reasons\":[\"flights are found; lodging comes next\"]}]}\n```"),
		)),
	}
}
