/**
 * The platform's GraphQL schema (platform-interface.md, "GraphQL"; input members per issue 2).
 * Operations, arguments and defaults follow the interface document exactly.
 */
export const typeDefs = /* GraphQL */ `
  "A UUID, e.g. 8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01."
  scalar UUID
  "An ISO 8601 timestamp with a zone (Z or an offset); always returned in UTC."
  scalar Timestamp
  "No value (always null)."
  scalar Void

  enum Direction {
    Inbound
    Outbound
  }

  enum DocumentOrdering {
    Id
    UpdateDate
  }

  type BookingStatus {
    id: UUID!
    name: String!
    description: String
  }

  type Carrier {
    id: UUID!
    name: String!
    description: String
  }

  type Location {
    id: UUID!
    name: String!
  }

  type Load {
    name: String!
    quantity: Float!
    loadTag: String
  }

  type Task {
    id: ID!
    direction: Direction!
    documentId: ID
    loads: [Load!]!
  }

  type Booking {
    id: ID!
    pin: String
    status: BookingStatus!
    carrier: Carrier!
    requestedTime: Timestamp!
    bookedTime: Timestamp
    "Minutes."
    duration: Int!
    reassignedFrom: ID
    location: Location!
    tasks: [Task!]!
  }

  type Document {
    id: ID!
    description: String
    updateDate: Timestamp!
  }

  type DocumentQuery {
    start: Int!
    pageSize: Int!
    totalPages: Int!
    totalRecords: Int!
    data: [Document!]!
  }

  input DocumentsFilterInput {
    ids: [ID!]
    direction: Direction
    typeName: String
    statusName: String
    "Documents updated at or after this time."
    updatedSince: Timestamp
  }

  input LoadQuantityInput {
    name: String!
    quantity: Float!
    loadTag: String
  }

  input FieldDataInput {
    fieldId: UUID
    key: String
    value: String
  }

  input FormSubmissionInput {
    formId: UUID
    name: String
    fields: [FieldDataInput!]!
  }

  input TaskInput {
    direction: Direction!
    senderId: UUID
    receiverId: UUID
    loads: [LoadQuantityInput!]!
    documentId: ID
    bookingOptions: [UUID!]
  }

  input BookingInput {
    carrierId: UUID!
    requestedTime: Timestamp!
    "Minutes."
    duration: Int!
    areaId: UUID
    vehicleId: UUID
    tasks: [TaskInput!]!
    fields: [FieldDataInput!]
    headerLoads: [LoadQuantityInput!]
  }

  "An entity by id, by name, or (organisations) by Core ID."
  input EntityRefInput {
    id: UUID
    name: String
    coreName: String
    coreId: String
  }

  input TaskEntityRefInput {
    direction: Direction!
    sender: EntityRefInput
    receiver: EntityRefInput
    loads: [LoadQuantityInput!]!
    documentId: ID
    bookingOptions: [UUID!]
  }

  input BookingEntityRefInput {
    carrier: EntityRefInput!
    requestedTime: Timestamp!
    duration: Int!
    area: EntityRefInput
    vehicle: EntityRefInput
    tasks: [TaskEntityRefInput!]!
    fields: [FieldDataInput!]
    headerLoads: [LoadQuantityInput!]
  }

  input BookingStatusEntityRefInput {
    name: String!
  }

  input VehicleInput {
    name: String
    registration: String
    type: String
  }

  type Query {
    booking(id: ID!): Booking
    documents(
      organisationId: UUID!
      filter: DocumentsFilterInput
      start: Int = 0
      count: Int = 100
      ordering: DocumentOrdering = Id
      ascending: Boolean = false
    ): DocumentQuery
  }

  type Mutation {
    createBooking(organisationId: UUID!, booking: BookingInput, bookingEntityRef: BookingEntityRefInput): ID
    updateBookingStatus(
      organisationId: UUID!
      bookingId: ID!
      statusId: UUID
      fields: [FieldDataInput!]
      formSubmissions: [FormSubmissionInput!]
      statusReference: BookingStatusEntityRefInput
    ): Void
    updateBookingTasks(
      organisationId: UUID!
      bookingId: ID!
      addTasks: [TaskInput!]!
      deleteTasks: [ID!]!
      time: Timestamp!
      areaId: UUID
      headerLoads: [LoadQuantityInput!]
    ): Void
    updateVehicle(organisationId: UUID!, vehicleId: UUID!, vehicle: VehicleInput): Void
  }
`;
