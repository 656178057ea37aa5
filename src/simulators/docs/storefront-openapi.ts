/**
 * The Storefront API's OpenAPI 3.1 file. `GET /inventory/{sku}` is marked
 * x-excluded although the navigation lists it (a planted fault), and
 * `DELETE /orders/{orderId}` is in no navigation group (another).
 */
export const storefrontOpenApi = `openapi: 3.1.0
info:
  title: Storefront API
  version: 1.4.0
  description: Orders, products, inventory and refunds for Storefront merchants.
servers:
  - url: https://api.storefront.example/v1
security:
  - bearerAuth: []
tags:
  - name: Orders
  - name: Catalog
  - name: Refunds
  - name: Utilities
paths:
  /orders:
    get:
      operationId: listOrders
      summary: List orders
      tags: [Orders]
      parameters:
        - $ref: "#/components/parameters/Limit"
        - $ref: "#/components/parameters/Cursor"
        - name: status
          in: query
          schema:
            type: string
            enum: [created, paid, shipped, delivered, canceled]
      responses:
        "200":
          description: A page of orders, newest first.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/OrderList"
        "401":
          $ref: "#/components/responses/Unauthorized"
    post:
      operationId: createOrder
      summary: Create an order
      tags: [Orders]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: "#/components/schemas/NewOrder"
      responses:
        "201":
          description: The order was created.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Order"
        "422":
          description: A line names an unknown product or the quantity is not positive.
  /orders/{orderId}:
    parameters:
      - name: orderId
        in: path
        required: true
        schema:
          type: string
    get:
      operationId: getOrder
      summary: Retrieve an order
      tags: [Orders]
      responses:
        "200":
          description: The order.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Order"
        "404":
          description: No order has this id.
    delete:
      operationId: cancelOrder
      summary: Cancel an order
      description: Cancels an order that has not shipped yet.
      tags: [Orders]
      responses:
        "200":
          description: The canceled order.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Order"
        "409":
          description: The order has shipped and can no longer be canceled.
  /products:
    get:
      operationId: listProducts
      summary: List products
      tags: [Catalog]
      parameters:
        - $ref: "#/components/parameters/Limit"
        - $ref: "#/components/parameters/Cursor"
      responses:
        "200":
          description: A page of products.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/ProductList"
  /inventory/{sku}:
    get:
      operationId: getInventoryLevel
      summary: Get the stock level of a SKU
      tags: [Catalog]
      x-excluded: true
      parameters:
        - name: sku
          in: path
          required: true
          schema:
            type: string
      responses:
        "200":
          description: Stock on hand and available to sell.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/InventoryLevel"
  /refunds:
    post:
      operationId: createRefund
      summary: Refund an order
      tags: [Refunds]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: "#/components/schemas/NewRefund"
      responses:
        "201":
          description: The refund was issued.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Refund"
  /status:
    get:
      operationId: getStatus
      summary: Service status
      tags: [Utilities]
      security: []
      responses:
        "200":
          description: The service is up.
          content:
            application/json:
              schema:
                type: object
                properties:
                  status:
                    type: string
                    example: ok
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
  parameters:
    Limit:
      name: limit
      in: query
      schema:
        type: integer
        minimum: 1
        maximum: 100
        default: 25
    Cursor:
      name: cursor
      in: query
      schema:
        type: string
  responses:
    Unauthorized:
      description: The bearer token is missing or invalid.
      content:
        application/json:
          schema:
            $ref: "#/components/schemas/Error"
  schemas:
    Error:
      type: object
      required: [code, message]
      properties:
        code:
          type: string
        message:
          type: string
    OrderLine:
      type: object
      required: [product_id, quantity]
      properties:
        product_id:
          type: string
        quantity:
          type: integer
          minimum: 1
        unit_price:
          type: number
    NewOrder:
      type: object
      required: [customer_email, lines]
      properties:
        customer_email:
          type: string
          format: email
        lines:
          type: array
          items:
            $ref: "#/components/schemas/OrderLine"
    Order:
      allOf:
        - $ref: "#/components/schemas/NewOrder"
        - type: object
          required: [id, status, total, currency, created_at]
          properties:
            id:
              type: string
              example: ord_8f2k1
            status:
              type: string
              enum: [created, paid, shipped, delivered, canceled]
            total:
              type: number
            currency:
              type: string
              example: USD
            created_at:
              type: string
              format: date-time
    OrderList:
      type: object
      properties:
        data:
          type: array
          items:
            $ref: "#/components/schemas/Order"
        next_cursor:
          type: [string, "null"]
    Product:
      type: object
      required: [id, name, price]
      properties:
        id:
          type: string
        name:
          type: string
        price:
          type: number
        sku:
          type: string
    ProductList:
      type: object
      properties:
        data:
          type: array
          items:
            $ref: "#/components/schemas/Product"
        next_cursor:
          type: [string, "null"]
    InventoryLevel:
      type: object
      properties:
        sku:
          type: string
        on_hand:
          type: integer
        available:
          type: integer
    NewRefund:
      type: object
      required: [order_id, amount]
      properties:
        order_id:
          type: string
        amount:
          type: number
        reason:
          type: string
    Refund:
      allOf:
        - $ref: "#/components/schemas/NewRefund"
        - type: object
          properties:
            id:
              type: string
            created_at:
              type: string
              format: date-time
`;
